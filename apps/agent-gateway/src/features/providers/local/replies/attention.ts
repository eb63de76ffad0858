import {
  ATTENTION_GROUPS,
  type AttentionLine,
  type AttentionList,
  attentionList,
  attentionWindow,
} from '../../../briefing/attention.ts';
import { fetchBriefingData } from '../../../briefing/briefing-data.ts';
import { formatDate, plural } from '../format.ts';
import type { AttentionAsk } from '../intent.ts';
import { askNext, blocks, table } from '../markdown.ts';
import type { PlatformReader } from '../platform-reader.ts';
import { CHAT_PAGING, toolboxReads } from './briefing.ts';

// "What needs my attention this week?", "What should I do today?", "Anything urgent?": the attention list
// (features/briefing/attention.ts) the daily briefing is written from, for the window asked, every line in a
// table with its property, item, status, date and why it matters. Nothing is left under "and N more".

/** Email looked at: a day for today's list, a week for longer windows (a request can wait a few days). */
const EMAIL_HOURS = { today: 24, longer: 168 } as const;
// every line shown: an attention list that hid some would defeat its purpose
const ALL_ROWS = 1_000;

export async function attentionReply(reader: PlatformReader, ask: AttentionAsk): Promise<string> {
  const emailHours = ask.kind === 'today' ? EMAIL_HOURS.today : EMAIL_HOURS.longer;
  const data = await fetchBriefingData(toolboxReads(reader), {
    paging: CHAT_PAGING,
    whole: false,
    emailHours,
    tenantCopies: true,
  });
  const window = attentionWindow(data.today, ask.kind, ask.kind === 'days' ? ask.days : 7);
  const list = attentionList(data, window, { emailHours });
  return writeAttention(list, data.copiesUnchecked ?? 0);
}

function row(l: AttentionLine): string[] {
  return [l.ref ?? '', l.item, l.status, l.when, l.why];
}

export function writeAttention(list: AttentionList, copiesUnchecked = 0): string {
  const { window, lines } = list;
  const safety = lines.filter((l) => l.safety);
  const head = lines.length
    ? `### What needs you ${window.words}: ${plural(lines.length, 'item')}`
    : `**Nothing needs you ${window.words}:** no certificate expired, missing or falling due, no notice, deal action, arrears or email waiting.`;
  const lead = lines.length
    ? safety.length
      ? `**Start with safety:** ${plural(safety.length, 'gas, electrical or alarm item')}: ${safetyRefs(safety)}.`
      : 'No gas, electrical or alarm item needs you.'
    : null;
  const sections = ATTENTION_GROUPS.flatMap(({ group, title }) => {
    const mine = lines.filter((l) => l.group === group);
    if (!mine.length) return [];
    return [
      `**${title} (${mine.length})**`,
      table(['Ref', 'What', 'Status', 'Date', 'Why it matters'], mine.map(row), ALL_ROWS),
    ];
  });
  const notes = [
    `As of ${formatDate(list.today)}.`,
    'Statutory safety first, then what is overdue or missing on any property, then what falls due ' +
      `by ${formatDate(window.until)}; arrears as they stand now, growing ones first (the change over 30 days); ` +
      `email from the last ${list.emailHours} hours.`,
  ];
  if (copiesUnchecked)
    notes.push(
      `Tenant copies were not checked at ${plural(copiesUnchecked, 'let property', 'let properties')}.`,
    );
  const first = lines.find((l) => l.ref);
  return blocks(
    head,
    lead,
    ...sections,
    `_${notes.join(' ')}_`,
    askNext([
      first ? `What needs attention at ${first.ref}?` : 'Give me a portfolio overview',
      window.kind === 'today' ? 'What needs my attention this week?' : 'What should I do today?',
      window.days >= 30 ? 'Give me my daily briefing' : 'What needs my attention in the next 30 days?',
    ]),
  );
}

/** "MAN-004 (gas), BRS-005 (EICR, alarms)": each property once, with what is wrong there. */
function safetyRefs(lines: AttentionLine[]): string {
  const short: Record<string, string> = { gas_safety: 'gas', eicr: 'EICR', smoke_co_alarms: 'alarms' };
  const byRef = new Map<string, string[]>();
  for (const l of lines) {
    const what = short[l.finding?.type ?? ''] ?? l.item;
    const list = byRef.get(l.ref ?? '') ?? [];
    if (!list.includes(what)) list.push(what);
    byRef.set(l.ref ?? '', list);
  }
  return [...byRef.entries()].map(([ref, what]) => `${ref} (${what.join(', ')})`).join(', ');
}
