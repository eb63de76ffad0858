import type { ComplianceType, PortfolioProperty, Property } from '@pa/contracts';
import { complianceFindings, needingAttention } from '../../../briefing/compliance-facts.ts';
import {
  dateWords,
  findingDetail,
  statusWord,
  TYPE_LABELS,
  TYPE_PLURALS,
} from '../../../briefing/compliance-words.ts';
import {
  addressLine,
  capitalise,
  daysBetween,
  formatDate,
  londonDay,
  money,
  plural,
  relativeDays,
  words,
} from '../format.ts';
import { askNext, blocks, table } from '../markdown.ts';
import type { PlatformReader, PortfolioView } from '../platform-reader.ts';

// One property: its facts, its tenancy, and everything that needs attention there.

function tenancyText(p: Property, today: string): string {
  const t = p.current_tenancy;
  if (!t) return p.letting_status === 'void' ? 'none, the property is void' : 'no current tenancy';
  const term = t.is_periodic
    ? 'periodic'
    : t.end_date
      ? `fixed term to ${formatDate(t.end_date)}`
      : 'no end date on record';
  const per =
    t.rent_frequency === 'weekly' ? 'a week' : t.rent_frequency === 'annually' ? 'a year' : 'a month';
  let deposit = 'no deposit on record';
  if (t.deposit) {
    deposit = t.deposit.protected_at
      ? `deposit ${money(t.deposit.amount_pence)} protected${t.deposit.scheme ? ` with ${t.deposit.scheme.toUpperCase()}` : ''} on ${formatDate(t.deposit.protected_at)}`
      : `deposit ${money(t.deposit.amount_pence)} **not yet protected**`;
  }
  const ends =
    t.end_date && (t.status === 'notice_given' || daysBetween(today, t.end_date) <= 60)
      ? `, ends on ${formatDate(t.end_date)} (${relativeDays(daysBetween(today, t.end_date))})`
      : '';
  return `${words(t.status)}, started ${formatDate(t.start_date)}, ${term}${ends}; rent ${money(t.rent_pence)} ${per}; ${deposit}`;
}

export async function propertyReply(
  reader: PlatformReader,
  view: PortfolioView,
  target: PortfolioProperty,
  focus: ComplianceType | null,
): Promise<string> {
  const [property, compliance] = await Promise.all([
    reader.property(target.id),
    reader.complianceOf(target.id),
  ]);
  const today = londonDay(compliance.as_of);
  const findings = complianceFindings([{ property: target, compliance }], today);
  const attention = needingAttention(findings);

  const facts = [
    `${capitalise(words(property.property_type))}, ${plural(property.bedrooms, 'bedroom')}`,
    words(property.letting_status),
    words(property.management_type),
    words(property.tenure),
  ];
  if (property.is_hmo)
    facts.push(
      `HMO${property.hmo_licence_type ? `, ${property.hmo_licence_type} licence` : ''}${property.max_occupants ? `, up to ${property.max_occupants} occupants` : ''}`,
    );
  if (property.units_total > 1)
    facts.push(`${property.units_occupied} of ${property.units_total} units occupied`);
  if (property.epc) facts.push(`EPC ${property.epc.rating}`);

  const s = property.compliance_summary;
  const summary = [
    `**Tenancy:** ${tenancyText(property, today)}`,
    `**Arrears:** ${property.arrears_pence > 0 ? `**${money(property.arrears_pence)}**` : 'none'}`,
    `**Compliance:** ${complianceCounts(s)}`,
  ].join('\n');

  let focusText: string | null = null;
  if (focus) {
    const mine = findings.filter((f) => f.type === focus);
    const said = mine.length
      ? mine.map((f) => findingDetail(f)).join('; ')
      : 'not required here (no record and none expected)';
    focusText = `**${TYPE_LABELS[focus]}:** ${said}.`;
  }

  const other: string[][] = [];
  if (property.arrears_pence > 0)
    other.push(['Rent arrears', `${money(property.arrears_pence)} owed`, 'now']);
  const t = property.current_tenancy;
  if (t?.deposit && !t.deposit.protected_at)
    other.push([
      'Deposit',
      `${money(t.deposit.amount_pence)} not protected yet`,
      t.deposit.protection_due_date
        ? `must be protected by ${formatDate(t.deposit.protection_due_date)} (${relativeDays(daysBetween(today, t.deposit.protection_due_date))})`
        : 'none on record',
    ]);
  if (t?.possession_date)
    other.push([
      'Tenancy',
      `Possession due${t.notice_given_on ? ` (notice given ${formatDate(t.notice_given_on)})` : ''}`,
      `${formatDate(t.possession_date)} (${relativeDays(daysBetween(today, t.possession_date))})`,
    ]);
  else if (t?.status === 'notice_given')
    other.push([
      'Tenancy',
      `Notice given${t.notice_given_on ? ` ${formatDate(t.notice_given_on)}` : ''}: ends`,
      t.end_date
        ? `${formatDate(t.end_date)} (${relativeDays(daysBetween(today, t.end_date))})`
        : 'no end date on record',
    ]);
  if (!t && property.letting_status === 'void') other.push(['Letting', 'Void: no tenancy', 'none']);

  const rows = [...attention.map((f) => [TYPE_LABELS[f.type], statusWord(f), dateWords(f)]), ...other];
  const attentionBlock =
    rows.length === 0
      ? '**Nothing needs attention here:** every compliance item on file is valid and there are no arrears.'
      : `**Needs attention (${rows.length})**\n\n${table(['What', 'Status', 'Date'], rows)}`;

  const worst = attention.find((f) => f.status === 'expired');
  const next = [
    worst ? `Which ${TYPE_PLURALS[worst.type]} have expired?` : 'What is due in the next 30 days?',
    `Summarise ${property.address.town}`,
  ];
  return blocks(
    `### ${property.ref} — ${addressLine(property)}`,
    facts.join(' · '),
    summary,
    focusText,
    attentionBlock,
    view.incomplete ? `_Note: ${view.incomplete}._` : null,
    askNext(next),
  );
}

/** "1 missing, 1 expired, 1 expiring soon, 3 valid": the worst first, counts of none left out. */
function complianceCounts(s: Property['compliance_summary']): string {
  const parts = [
    [s.missing, 'missing'],
    [s.expired, 'expired'],
    [s.expiring_soon, 'expiring soon'],
    [s.valid, 'valid'],
  ] as const;
  const said = parts.filter(([n]) => n > 0).map(([n, what]) => `${n} ${what}`);
  return said.length ? said.join(', ') : 'nothing on file';
}
