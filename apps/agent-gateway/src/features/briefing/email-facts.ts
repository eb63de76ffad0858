import type { EmailActivity } from '@pa/contracts';

export interface EmailFacts {
  /** inbound messages needing a response with no later outbound message in their thread, newest first */
  awaiting: EmailActivity[];
  /** those needing a response that were answered later in the thread */
  answered: EmailActivity[];
}

export function emailsAwaitingReply(items: EmailActivity[]): EmailFacts {
  const needs = items.filter((e) => e.direction === 'inbound' && e.requires_response);
  const repliedLater = (e: EmailActivity) =>
    items.some(
      (o) =>
        o.direction === 'outbound' &&
        o.thread_id === e.thread_id &&
        Date.parse(o.received_at) > Date.parse(e.received_at),
    );
  const newestFirst = (a: EmailActivity, b: EmailActivity) =>
    Date.parse(b.received_at) - Date.parse(a.received_at);
  return {
    awaiting: needs.filter((e) => !repliedLater(e)).sort(newestFirst),
    answered: needs.filter(repliedLater).sort(newestFirst),
  };
}
