import type { EmailActivity, WorkerEmailActivity } from '@pa/contracts';

/** A message as the bridge gives it, or as the worker's email tool does (labelled with its source). */
export type MailItem = EmailActivity | WorkerEmailActivity;

export interface EmailFacts<E extends MailItem = MailItem> {
  /** inbound messages needing a response with no later outbound message in their thread, newest first */
  awaiting: E[];
  /** those needing a response that were answered later in the thread */
  answered: E[];
}

export function emailsAwaitingReply<E extends MailItem>(items: E[]): EmailFacts<E> {
  const needs = items.filter((e) => e.direction === 'inbound' && e.requires_response);
  const repliedLater = (e: E) =>
    items.some(
      (o) =>
        o.direction === 'outbound' &&
        o.thread_id === e.thread_id &&
        Date.parse(o.received_at) > Date.parse(e.received_at),
    );
  const newestFirst = (a: E, b: E) => Date.parse(b.received_at) - Date.parse(a.received_at);
  return {
    awaiting: needs.filter((e) => !repliedLater(e)).sort(newestFirst),
    answered: needs.filter(repliedLater).sort(newestFirst),
  };
}

/** Where a message was read, in words: the platform's mailbox, or one the assistant reads itself. */
export function mailSource(e: MailItem): string {
  return 'source' in e && e.source === 'assistant'
    ? `${e.mailbox}, Porter’s own mailbox`
    : `${e.mailbox}, via the platform`;
}

/** True when some of the mail comes from the assistant's own mailboxes, so sources are worth naming. */
export function mixedSources(items: MailItem[]): boolean {
  return items.some((e) => 'source' in e && e.source === 'assistant');
}
