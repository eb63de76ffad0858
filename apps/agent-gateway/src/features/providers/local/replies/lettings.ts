import type { PortfolioProperty } from '@pa/contracts';
import {
  arrearsByProperty,
  noticeGiven,
  tenanciesEnding,
  totalArrears,
  vacancies,
} from '../../../briefing/lettings-facts.ts';
import {
  addressLine,
  daysBetween,
  formatDate,
  money,
  percent,
  plural,
  relativeDays,
  words,
} from '../format.ts';
import type { Intent } from '../intent.ts';
import { askNext, blocks, table } from '../markdown.ts';
import type { PortfolioView } from '../platform-reader.ts';
import { windowEnd } from './compliance.ts';
import { asOf, firstRef, scopeWords } from './shared.ts';

// Arrears, tenancies ending and voids: answered from the portfolio page alone (one call).

export function arrearsReply(view: PortfolioView, scope: PortfolioProperty[] | null): string {
  const list = arrearsByProperty(scope ?? view.properties);
  if (list.length === 0)
    return blocks(
      `**No rent arrears**${scopeWords(scope)}: every tenant is up to date.`,
      asOf(view),
      askNext(['Which tenancies end in the next 60 days?', 'Give me a portfolio overview']),
    );
  const total = totalArrears(list);
  return blocks(
    `### Rent arrears: ${money(total)} across ${plural(list.length, 'property', 'properties')}${scopeWords(scope)}`,
    table(
      ['Ref', 'Address', 'Arrears', 'Tenancy'],
      list.map((p) => [
        p.ref,
        addressLine(p),
        money(p.arrears_pence),
        p.tenancy_status ? words(p.tenancy_status) : 'no current tenancy',
      ]),
    ),
    asOf(view),
    askNext([
      `What needs attention at ${list[0]!.ref}?`,
      list[1] ? `Tell me about ${list[1].ref}` : 'Which tenancies end in the next 60 days?',
      'What is the rent roll?',
    ]),
  );
}

type TenancyIntent = Extract<Intent, { kind: 'tenancies' }>;

export function tenanciesReply(
  view: PortfolioView,
  intent: TenancyIntent,
  scope: PortfolioProperty[] | null,
): string {
  const properties = scope ?? view.properties;
  const today = view.today;
  if (intent.notice && !intent.window) {
    const list = noticeGiven(properties);
    return blocks(
      list.length
        ? `### Tenants who have given notice: ${plural(list.length, 'property', 'properties')}${scopeWords(scope)}`
        : `**No tenant is under notice**${scopeWords(scope)}.`,
      list.length
        ? table(
            ['Ref', 'Address', 'Ends', 'When'],
            list.map((p) => [
              p.ref,
              addressLine(p),
              p.tenancy_end_date ? formatDate(p.tenancy_end_date) : 'no end date on record',
              p.tenancy_end_date ? relativeDays(daysBetween(today, p.tenancy_end_date)) : '',
            ]),
          )
        : null,
      asOf(view),
      askNext(['Which tenancies end in the next 60 days?', 'Which properties are void?']),
    );
  }
  const { until, words: period } = windowEnd(intent.window ?? { kind: 'days', days: 60 }, today);
  const list = tenanciesEnding(properties, today, until, false);
  const notice = noticeGiven(properties).filter((p) => !list.some((t) => t.property.id === p.id));
  return blocks(
    list.length
      ? `### Tenancies ending ${period}: ${list.length}${scopeWords(scope)}`
      : `**No tenancy ends ${period}**${scopeWords(scope)}.`,
    list.length
      ? table(
          ['Ref', 'Address', 'Ends', 'When', 'Notice given'],
          list.map((t) => [
            t.property.ref,
            addressLine(t.property),
            formatDate(t.endDate),
            relativeDays(t.days),
            t.noticeGiven ? 'Yes' : 'No',
          ]),
        )
      : null,
    notice.length
      ? `Also under notice: ${notice.map((p) => `${p.ref}${p.tenancy_end_date ? ` (ends ${formatDate(p.tenancy_end_date)})` : ''}`).join(', ')}.`
      : null,
    asOf(view, [
      'A tenancy is listed when it ends by a notice or a possession date; periodic tenancies under notice ' +
        'are included. A fixed term’s end no longer ends a tenancy in England (periodic from 1 May 2026), ' +
        'so tenancies with no notice are not listed.',
    ]),
    askNext([
      list[0] ? `Tell me about ${list[0].property.ref}` : `Tell me about ${firstRef([], view)}`,
      'Which properties are void?',
      'Which properties have arrears?',
    ]),
  );
}

export function voidsReply(view: PortfolioView, scope: PortfolioProperty[] | null): string {
  const properties = scope ?? view.properties;
  const { voids, partlyVacant, vacantUnits } = vacancies(properties);
  const units = properties.reduce((n, p) => n + p.units_total, 0);
  const occupied = properties.reduce((n, p) => n + p.units_occupied, 0);
  const rate = units ? occupied / units : 0;
  const rows = [...voids, ...partlyVacant].map((p) => [
    p.ref,
    addressLine(p),
    words(p.letting_status),
    `${p.units_total - p.units_occupied} of ${p.units_total}`,
  ]);
  return blocks(
    `### Voids and vacant units${scopeWords(scope)}`,
    `**${plural(voids.length, 'void property', 'void properties')}** (no unit occupied). ${occupied} of ${units} units occupied, ${plural(vacantUnits, 'vacant unit')}: occupancy **${percent(scope ? rate : view.summary.occupancy_rate)}**.`,
    rows.length
      ? table(['Ref', 'Address', 'Letting status', 'Vacant units'], rows)
      : 'Every unit is occupied.',
    asOf(view),
    askNext([
      voids[0] ? `Tell me about ${voids[0].ref}` : 'Which tenancies end in the next 60 days?',
      'What is the rent roll?',
    ]),
  );
}

export function periodicReply(view: PortfolioView): string {
  const list = view.properties.filter((p) => p.tenancy_is_periodic);
  return blocks(
    list.length
      ? `### Periodic tenancies: ${plural(list.length, 'property', 'properties')}`
      : '**No current tenancy is periodic**: every one is on a fixed term.',
    list.length
      ? table(
          ['Ref', 'Address', 'Tenancy', 'Ends'],
          list.map((p) => [
            p.ref,
            addressLine(p),
            p.tenancy_status ? words(p.tenancy_status) : '',
            p.tenancy_end_date ? formatDate(p.tenancy_end_date) : 'no end date',
          ]),
        )
      : null,
    asOf(view),
    askNext(['Which tenancies end in the next 60 days?', 'Who has given notice?']),
  );
}
