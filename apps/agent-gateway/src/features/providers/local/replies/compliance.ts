import type { PortfolioProperty } from '@pa/contracts';
import {
  type ComplianceFinding,
  complianceFindings,
  dueBy,
  epcsBelowE,
} from '../../../briefing/compliance-facts.ts';
import { TYPE_PLURALS } from '../../../briefing/compliance-words.ts';
import { addDays, endOfMonth, endOfYear } from '../../../briefing/dates.ts';
import { addressLine, capitalise, formatDate, plural } from '../format.ts';
import type { Intent, Window } from '../intent.ts';
import { askNext, blocks, table } from '../markdown.ts';
import { type PlatformReader, type PortfolioView, readCompliance } from '../platform-reader.ts';
import { asOf, findingsNamed, findingsTable, scopeWords } from './shared.ts';

// Compliance across the portfolio (or the properties a question names): by type, status and window.

type ComplianceIntent = Extract<Intent, { kind: 'compliance' }>;

const MONTH_YEAR = new Intl.DateTimeFormat('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' });

/** The last day a window reaches, and its words. */
export function windowEnd(window: Window, today: string): { until: string; words: string } {
  switch (window.kind) {
    case 'days':
      return { until: addDays(today, window.days), words: `in the next ${window.days} days` };
    case 'week':
      return { until: addDays(today, 7), words: 'in the next 7 days' };
    case 'month':
      return { until: endOfMonth(today), words: `this month (to ${formatDate(endOfMonth(today))})` };
    case 'year':
      return { until: endOfYear(today), words: `this year (to ${formatDate(endOfYear(today))})` };
    case 'last-month': {
      const until = addDays(`${today.slice(0, 7)}-01`, -1);
      return { until, words: `last month (${MONTH_YEAR.format(new Date(`${until}T00:00:00Z`))})` };
    }
  }
}

function countAt(list: ComplianceFinding[]): string {
  const props = new Set(list.map((f) => f.property.id)).size;
  return `${plural(list.length, 'item')} at ${plural(props, 'property', 'properties')}`;
}

export async function complianceReply(
  reader: PlatformReader,
  view: PortfolioView,
  intent: ComplianceIntent,
  scope: PortfolioProperty[] | null,
): Promise<string> {
  const properties = scope ?? view.properties;
  const today = view.today;
  const read = await readCompliance(reader, properties, intent.window ? 'all' : 'not-valid');
  const all = complianceFindings(read.records, today).filter((f) => !intent.type || f.type === intent.type);
  const what = intent.type ? TYPE_PLURALS[intent.type] : 'compliance items';
  const where = scopeWords(scope);
  const withType = !intent.type;
  const expired = all.filter((f) => f.status === 'expired');
  const missing = all.filter((f) => f.status === 'missing');
  const soon = all.filter((f) => f.status === 'expiring');
  const parts: (string | null)[] = [];

  if (intent.status === 'expired' && intent.window?.kind === 'last-month') {
    const { until, words } = windowEnd(intent.window, today);
    const from = `${until.slice(0, 7)}-01`;
    const inMonth = expired.filter((f) => f.dueDate !== null && f.dueDate >= from && f.dueDate <= until);
    parts.push(
      inMonth.length
        ? `### ${capitalise(what)} that expired ${words}: ${countAt(inMonth)}`
        : `**No ${what} expired ${words}**${where}.`,
    );
    if (inMonth.length) parts.push(findingsTable(inMonth, withType));
    const others = expired.length - inMonth.length;
    if (others)
      parts.push(
        `${plural(others, 'other expired item')} expired in another month: ask “${intent.type ? `Which ${TYPE_PLURALS[intent.type]} have expired?` : 'Which compliance items have expired?'}”`,
      );
  } else if (intent.status === 'expired') {
    parts.push(
      expired.length
        ? `### Expired ${what}${where}: ${countAt(expired)}`
        : `**No ${what} have expired**${where}.`,
    );
    if (expired.length) parts.push(findingsTable(expired, withType));
    parts.push(
      soon.length
        ? `A further ${plural(soon.length, 'item')} ${soon.length === 1 ? 'is' : 'are'} expiring soon at ${plural(new Set(soon.map((f) => f.property.id)).size, 'property', 'properties')}: ask “${intent.type ? `Which ${TYPE_PLURALS[intent.type]} are expiring soon?` : 'What is expiring soon?'}”`
        : `Nothing else is expiring soon.`,
    );
  } else if (intent.status === 'missing') {
    parts.push(
      missing.length
        ? `### Missing ${what}${where}: ${countAt(missing)}`
        : `**No ${what} are missing**${where}.`,
    );
    if (missing.length) parts.push(findingsTable(missing, withType));
  } else if (intent.window) {
    const { until, words } = windowEnd(intent.window, today);
    const due = dueBy(all, until);
    parts.push(
      due.length
        ? `### ${capitalise(what)} due ${words}${where}: ${countAt(due)}`
        : `**No ${what} fall due ${words}**${where}.`,
    );
    if (due.length) parts.push(findingsTable(due, withType));
    if (expired.length || missing.length)
      parts.push(
        `Already overdue or missing, not counted above: ${countAt([...expired, ...missing])}: ${findingsNamed([...expired, ...missing])}.`,
      );
  } else if (intent.status === 'expiring') {
    parts.push(
      soon.length
        ? `### ${capitalise(what)} expiring soon${where}: ${countAt(soon)}`
        : `**No ${what} are expiring soon**${where}.`,
    );
    if (soon.length) parts.push(findingsTable(soon, withType));
    if (expired.length)
      parts.push(`Already expired, not counted above: ${countAt(expired)}: ${findingsNamed(expired)}.`);
  } else {
    const total = expired.length + missing.length + soon.length;
    const c = view.summary.compliance;
    if (!scope && !intent.type)
      parts.push(
        `**Across the portfolio:** ${c.valid} valid, ${c.expiring_soon} expiring soon, ${c.expired} expired, ${c.missing} missing.`,
      );
    parts.push(
      total === 0
        ? `**All ${what}${where} are in order:** nothing expired, expiring soon or missing.`
        : `### ${capitalise(what)}${where} needing attention: ${total}`,
    );
    for (const [title, list] of [
      ['Expired', expired],
      ['Missing', missing],
      [intent.type === 'deposit_protection' ? 'To protect' : 'Expiring soon', soon],
    ] as const) {
      if (list.length) parts.push(`**${title} (${list.length})**`, findingsTable(list, withType));
    }
  }

  const checked = read.records.length;
  const notes = [
    intent.window
      ? `Checked all ${plural(checked, 'property', 'properties')}.`
      : `Checked the ${plural(checked, 'property', 'properties')} whose compliance is not fully valid (of ${properties.length}).`,
  ];
  if (read.skipped) notes.push(`${read.skipped} more were not checked to keep this quick.`);
  parts.push(asOf(view, notes));
  // a ref suggested only when the answer itself names it
  const shown = shownFindings(intent, {
    expired,
    missing,
    soon,
    window: intent.window ? dueBy(all, windowEnd(intent.window, today).until) : [],
  });
  parts.push(
    askNext([
      shown[0] ? `What needs attention at ${shown[0].property.ref}?` : 'Give me a portfolio overview',
      intent.window ? 'Which compliance items have expired?' : 'What is due in the next 30 days?',
      intent.type === 'gas_safety'
        ? 'Which EICRs need attention?'
        : 'Which gas safety certificates have expired?',
    ]),
  );
  return blocks(...parts);
}

function shownFindings(
  intent: ComplianceIntent,
  lists: {
    expired: ComplianceFinding[];
    missing: ComplianceFinding[];
    soon: ComplianceFinding[];
    window: ComplianceFinding[];
  },
): ComplianceFinding[] {
  if (intent.status === 'expired') return intent.window ? [] : lists.expired;
  if (intent.status === 'missing') return lists.missing;
  if (intent.window) return lists.window;
  if (intent.status === 'expiring') return lists.soon;
  return [...lists.expired, ...lists.missing, ...lists.soon];
}

function exemptionWords(until: string | null, today: string): string {
  if (!until) return 'no exemption: cannot be let until improved';
  return until >= today
    ? `exemption registered until ${formatDate(until)}`
    : `exemption lapsed on ${formatDate(until)}: cannot be let until improved`;
}

/** EPCs rated F or G (below the legal minimum of E), from the compliance item's rating or the property's EPC. */
export async function epcBelowEReply(
  reader: PlatformReader,
  view: PortfolioView,
  scope: PortfolioProperty[] | null,
): Promise<string> {
  const properties = scope ?? view.properties;
  const read = await readCompliance(reader, properties, 'all');
  const findings = epcsBelowE(complianceFindings(read.records, view.today));
  const rows = findings.map((f) => [
    f.property.ref,
    addressLine(f.property),
    f.item!.rating ?? '',
    exemptionWords(f.item!.exemption_valid_until, view.today),
  ]);
  const head = findings.length
    ? `### EPCs below E: ${plural(new Set(findings.map((f) => f.property.id)).size, 'property', 'properties')}`
    : `**No EPCs are rated below E**${scopeWords(scope)}: every EPC on file is E or better.`;
  return blocks(
    head,
    findings.length
      ? 'The legal minimum for letting is E, so these need improvement works or a registered exemption.'
      : null,
    findings.length ? table(['Ref', 'Address', 'Rating', 'Position'], rows) : null,
    asOf(view, [`Checked the EPCs of ${plural(read.records.length, 'property', 'properties')}.`]),
    askNext([
      findings[0] ? `What needs attention at ${findings[0].property.ref}?` : 'Give me a portfolio overview',
      'Which EPCs are expiring this year?',
    ]),
  );
}
