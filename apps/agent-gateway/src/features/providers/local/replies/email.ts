import type { WorkerEmailActivity } from '@pa/contracts';
import { emailsAwaitingReply, mailSource, mixedSources } from '../../../briefing/email-facts.ts';
import { formatTime, plural } from '../format.ts';
import { askNext, blocks, table } from '../markdown.ts';
import type { PlatformReader } from '../platform-reader.ts';

type EmailCategory = WorkerEmailActivity['category'];

// With mailboxes of the assistant's own beside the platform's, every row says where the message was read.

function rows(list: WorkerEmailActivity[], refs: Map<number, string>, named: boolean): string[][] {
  return list.map((e) => [
    e.subject,
    e.from,
    formatTime(e.received_at),
    e.category,
    e.linked.property_id === null ? '' : (refs.get(e.linked.property_id) ?? ''),
    ...(named ? [mailSource(e)] : []),
  ]);
}

const headers = (named: boolean) => [
  'Subject',
  'From',
  'Received',
  'Category',
  'Property',
  ...(named ? ['Mailbox'] : []),
];

/** What could not be read, in words: the platform's answer trimmed, or the platform down (own mail still shown). */
function notes(res: { truncated?: unknown; platform_error?: string | undefined }): string | null {
  if (res.platform_error)
    return `_Note: the platform could not be read (${res.platform_error.replace(/\.$/, '')}), so only the mail of Porter’s own mailboxes is shown._`;
  return res.truncated
    ? '_Note: the platform’s answer was trimmed; ask about fewer hours to see everything._'
    : null;
}

export async function emailReply(
  reader: PlatformReader,
  hours: number,
  category: EmailCategory | null = null,
): Promise<string> {
  // the property refs are a nicety: with the platform down, the assistant's own mail is still listed
  const [res, view] = await Promise.all([reader.emails(hours), reader.portfolio().catch(() => null)]);
  const refs = new Map((view?.properties ?? []).map((p) => [p.id, p.ref]));
  const named = mixedSources(res.items);
  if (category) return categoryReply(res.items, res.hours, category, refs, notes(res), named);
  const { awaiting, answered } = emailsAwaitingReply(res.items);
  const period = res.hours % 24 === 0 && res.hours >= 48 ? `${res.hours / 24} days` : `${res.hours} hours`;
  const label = res.hours === 48 ? '48 hours' : period;
  const trimmed = notes(res);
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
    awaiting.length ? table(headers(named), rows(awaiting, refs, named)) : null,
    answered.length
      ? `**Answered since (check they are resolved)**\n\n${table(headers(named), rows(answered, refs, named), 10)}`
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
  items: WorkerEmailActivity[],
  hours: number,
  category: EmailCategory,
  refs: Map<number, string>,
  note: string | null,
  named: boolean,
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
      ['Subject', 'From', 'Received', 'Property', 'Needs a reply', ...(named ? ['Mailbox'] : [])],
      list.map((e) => [
        e.subject,
        e.from,
        formatTime(e.received_at),
        e.linked.property_id === null ? '' : (refs.get(e.linked.property_id) ?? ''),
        awaiting.includes(e) ? 'Yes' : 'No',
        ...(named ? [mailSource(e)] : []),
      ]),
    ),
    note,
    askNext(['Which emails need a reply?', 'Give me my daily briefing']),
  );
}
