import type { PortfolioProperty } from '@pa/contracts';
import { monthlyRent, totalArrears } from '../../../briefing/lettings-facts.ts';
import { addressLine, money, percent, plural, words } from '../format.ts';
import { askNext, blocks, table } from '../markdown.ts';
import type { PortfolioView } from '../platform-reader.ts';
import { asOf, firstRef, propertiesNamed } from './shared.ts';

// The whole portfolio, a town or area of it, and the rent roll.

export function overviewReply(view: PortfolioView): string {
  const s = view.summary;
  const byLetting = new Map<string, number>();
  for (const p of view.properties)
    byLetting.set(p.letting_status, (byLetting.get(p.letting_status) ?? 0) + 1);
  const letting = [...byLetting.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${n} ${words(k)}`)
    .join(', ');
  const hmos = view.properties.filter((p) => p.is_hmo).length;
  const withStatus = (status: string) => view.properties.filter((p) => p.compliance_status === status);
  const expired = withStatus('expired');
  const missing = withStatus('missing');
  const arrears = view.properties.filter((p) => p.arrears_pence > 0);
  const lines = [
    `- **${plural(s.properties_total, 'property', 'properties')}**${hmos ? ` (${plural(hmos, 'HMO')})` : ''}: ${letting}`,
    `- **Units:** ${s.units_occupied} of ${s.units_total} units occupied (${s.units_vacant} vacant), occupancy **${percent(s.occupancy_rate)}**`,
    `- **Rent roll:** ${money(s.rent_roll_monthly_pence)} a month`,
    `- **Arrears:** ${s.arrears_pence > 0 ? `**${money(s.arrears_pence)}** (${propertiesNamed(arrears)})` : 'none'}`,
    `- **Compliance items:** ${s.compliance.valid} valid, ${s.compliance.expiring_soon} expiring soon, ${s.compliance.expired} expired, ${s.compliance.missing} missing`,
    `- **${plural(s.open_deals, 'open deal')}**, pipeline ${money(s.pipeline_value_pence)}`,
  ];
  // a property's status is its worst item's, so one with both an expired and a missing item shows only as
  // missing: the overview names them together and leaves the items to the attention list
  const attention: string[] = [];
  const notValid = [...missing, ...expired].sort((a, b) => a.ref.localeCompare(b.ref));
  if (notValid.length)
    attention.push(
      `- ${plural(notValid.length, 'property', 'properties')} with an item expired or missing: ${propertiesNamed(notValid, 100)}. ` +
        'Ask “What needs my attention this week?” for every item, safety first.',
    );
  return blocks(
    `### Portfolio overview: ${view.tenant.name}`,
    lines.join('\n'),
    attention.length ? `**Properties needing compliance attention**\n\n${attention.join('\n')}` : null,
    asOf(view),
    askNext([
      'Which gas safety certificates have expired?',
      `What needs attention at ${(missing[0] ?? expired[0] ?? view.properties[0])?.ref ?? 'MAN-004'}?`,
      'Which properties have arrears?',
    ]),
  );
}

/** A town, street or area: its properties in a table and their totals. */
export function areaReply(view: PortfolioView, place: string, list: PortfolioProperty[]): string {
  const rent = list.reduce((n, p) => n + monthlyRent(p), 0);
  const arrears = totalArrears(list);
  const units = list.reduce((n, p) => n + p.units_total, 0);
  const occupied = list.reduce((n, p) => n + p.units_occupied, 0);
  const problems = list.filter((p) => p.compliance_status !== 'valid');
  const rows = list.map((p) => [
    p.ref,
    addressLine(p),
    words(p.letting_status),
    p.rent_pence === null ? 'none' : `${money(monthlyRent(p))} a month`,
    p.arrears_pence ? money(p.arrears_pence) : 'none',
    words(p.compliance_status),
  ]);
  return blocks(
    `### ${place}: ${plural(list.length, 'property', 'properties')}`,
    [
      `- **Units:** ${units} (${occupied} occupied)${units ? `, occupancy ${percent(occupied / units)}` : ''}`,
      `- **Rent roll:** ${money(rent)} a month`,
      `- **Arrears:** ${arrears ? money(arrears) : 'none'}`,
      `- **Compliance:** ${problems.length ? `${plural(problems.length, 'property', 'properties')} not fully valid (${propertiesNamed(problems)})` : 'all valid'}`,
    ].join('\n'),
    table(['Ref', 'Address', 'Letting status', 'Rent', 'Arrears', 'Compliance'], rows),
    asOf(view),
    askNext([
      `What needs attention at ${firstRef(problems.length ? problems : list, view)}?`,
      'Which properties have arrears?',
      'Give me a portfolio overview',
    ]),
  );
}

export function rentRollReply(
  view: PortfolioView,
  scope: { place: string; list: PortfolioProperty[] } | null,
): string {
  const properties = scope?.list ?? view.properties;
  const monthly = scope
    ? properties.reduce((n, p) => n + monthlyRent(p), 0)
    : view.summary.rent_roll_monthly_pence;
  const byTown = new Map<string, { n: number; rent: number }>();
  for (const p of properties) {
    if (p.rent_pence === null) continue;
    const t = byTown.get(p.address.town) ?? { n: 0, rent: 0 };
    t.n++;
    t.rent += monthlyRent(p);
    byTown.set(p.address.town, t);
  }
  const rows = [...byTown.entries()]
    .sort((a, b) => b[1].rent - a[1].rent)
    .map(([town, t]) => [town, String(t.n), `${money(t.rent)}`]);
  const let_ = properties.filter((p) => p.rent_pence !== null).length;
  return blocks(
    `### Rent roll${scope ? `: ${scope.place}` : ''}: ${money(monthly)} a month`,
    `That is about **${money(Math.round(monthly * 12))} a year** from ${plural(let_, 'current tenancy', 'current tenancies')}. Arrears stand at ${money(totalArrears(properties))}.`,
    rows.length ? table(['Town', 'Let properties', 'Monthly rent'], rows) : null,
    asOf(view, ['Weekly rents count as 52 weeks over 12 months.']),
    askNext(['Which properties have arrears?', 'Which properties are void?']),
  );
}

const PER = { weekly: 'a week', monthly: 'a month', annually: 'a year' } as const;

/** The properties by rent, highest (or lowest) first, compared as monthly equivalents. */
export function rentRankingReply(view: PortfolioView, order: 'highest' | 'lowest'): string {
  const let_ = view.properties.filter((p) => p.rent_pence !== null);
  const sorted = [...let_].sort((a, b) =>
    order === 'highest' ? monthlyRent(b) - monthlyRent(a) : monthlyRent(a) - monthlyRent(b),
  );
  const top = sorted[0];
  if (!top)
    return blocks('**No property has a current tenancy**, so there is no rent to compare.', asOf(view));
  const rent = (p: PortfolioProperty) =>
    `${money(p.rent_pence!)} ${PER[p.rent_frequency ?? 'monthly']}${p.rent_frequency === 'monthly' ? '' : ` (${money(monthlyRent(p))} a month)`}`;
  return blocks(
    `### ${order === 'highest' ? 'Highest' : 'Lowest'} rent: ${top.ref}, ${rent(top)}`,
    table(
      ['Ref', 'Address', 'Rent'],
      sorted.slice(0, 5).map((p) => [p.ref, addressLine(p), rent(p)]),
    ),
    asOf(view, ['Weekly and annual rents are compared as monthly equivalents.']),
    askNext([`Tell me about ${top.ref}`, 'What is the rent roll?']),
  );
}

export function hmosReply(view: PortfolioView): string {
  const list = view.properties.filter((p) => p.is_hmo);
  if (list.length === 0) return blocks('**None of your properties is an HMO.**', asOf(view));
  return blocks(
    `### HMOs: ${plural(list.length, 'property', 'properties')}`,
    table(
      ['Ref', 'Address', 'Units occupied', 'Compliance'],
      list.map((p) => [
        p.ref,
        addressLine(p),
        `${p.units_occupied} of ${p.units_total}`,
        words(p.compliance_status),
      ]),
    ),
    asOf(view),
    askNext(['Which HMO licences expire in the next 90 days?', `What needs attention at ${list[0]!.ref}?`]),
  );
}
