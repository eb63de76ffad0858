import type { EmailActivity } from '@pa/contracts';

type EmailCategory = EmailActivity['category'];
import { emailsAwaitingReply } from '../../../briefing/email-facts.ts';
import { formatTime, plural } from '../format.ts';
import { askNext, blocks, table } from '../markdown.ts';
import type { PlatformReader } from '../platform-reader.ts';

function rows(list: EmailActivity[], refs: Map<number, string>): string[][] {
  return list.map((e) => [
    e.subject,
    e.from,
    formatTime(e.received_at),
    e.category,
    e.linked.property_id === null ? '' : (refs.get(e.linked.property_id) ?? ''),
  ]);
}

const HEADERS = ['Subject', 'From', 'Received', 'Category', 'Property'];

export async function emailReply(
  reader: PlatformReader,
  hours: number,
  category: EmailCategory | null = null,
): Promise<string> {
  const [res, view] = await Promise.all([reader.emails(hours), reader.portfolio()]);
  const refs = new Map(view.properties.map((p) => [p.id, p.ref]));
  if (category) return categoryReply(res.items, res.hours, category, refs, !!res.truncated);
  const { awaiting, answered } = emailsAwaitingReply(res.items);
  const period = res.hours % 24 === 0 && res.hours >= 48 ? `${res.hours / 24} days` : `${res.hours} hours`;
  const label = res.hours === 48 ? '48 hours' : period;
  const trimmed = res.truncated
    ? '_Note: the platform’s answer was trimmed; ask about fewer hours to see everything._'
    : null;
  const next = askNext([
    res.hours < 168 ? 'Which emails need a reply this week?' : 'Which emails need a reply?',
    'Any deal actions overdue?',
  ]);
  if (awaiting.length === 0 && answered.length === 0)
    return blocks(
      `**No email needs a response** from the last ${label} (${plural(res.items.length, 'message')} in all).`,
      trimmed,
      next,
    );
  return blocks(
    `### Email needing a response — last ${label}`,
    `**${awaiting.length} awaiting a reply**${answered.length ? `, ${answered.length} already answered in the thread` : ''} (${plural(res.items.length, 'message')} in all)`,
    awaiting.length ? table(HEADERS, rows(awaiting, refs)) : null,
    answered.length
      ? `**Answered since (check they are resolved)**\n\n${table(HEADERS, rows(answered, refs), 10)}`
      : null,
    trimmed,
    next,
  );
}

function periodWords(hours: number): string {
  return hours % 24 === 0 && hours >= 48 ? `${hours / 24} days` : `${hours} hours`;
}

/** Every inbound message of one kind ("from the council", "about arrears"), answered or not. */
function categoryReply(
  items: EmailActivity[],
  hours: number,
  category: EmailCategory,
  refs: Map<number, string>,
  truncated: boolean,
): string {
  const { awaiting } = emailsAwaitingReply(items);
  const list = items
    .filter((e) => e.direction === 'inbound' && e.category === category)
    .sort((a, b) => Date.parse(b.received_at) - Date.parse(a.received_at));
  const what = category === 'council' ? 'from the council' : `about ${category}`;
  if (list.length === 0)
    return blocks(
      `**No email ${what}** in the last ${periodWords(hours)}.`,
      askNext(['Which emails need a reply?']),
    );
  return blocks(
    `### Email ${what} — last ${periodWords(hours)}: ${list.length}`,
    table(
      ['Subject', 'From', 'Received', 'Property', 'Needs a reply'],
      list.map((e) => [
        e.subject,
        e.from,
        formatTime(e.received_at),
        e.linked.property_id === null ? '' : (refs.get(e.linked.property_id) ?? ''),
        awaiting.includes(e) ? 'Yes' : 'No',
      ]),
    ),
    truncated ? '_Note: the platform’s answer was trimmed; ask about fewer hours to see everything._' : null,
    askNext(['Which emails need a reply?', 'Give me my daily briefing']),
  );
}
