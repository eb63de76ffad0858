import type { EmailActivityResponse, WorkerEmailActivity, WorkerEmailActivityResponse } from '@pa/contracts';
import { type OwnMailbox, toOwnEmailActivity, toOwnMailbox } from './email-mapper.ts';
import type { MailboxesRepository } from './mailboxes-repository.ts';

// The worker's email activity (docs/email.md): the platform's mailboxes read through the bridge, and the worker's
// own (EMAIL_INGESTION_ENABLED) from the gateway's store, in one newest-first list where every message says
// which it came from. A mailbox is never in both (the one-mailbox rule), so nothing is counted twice.

/** The same cap as the bridge's own list, per source. */
const MAX_OWN_ITEMS = 1000;

/** The worker's own messages in the last `hours`, and its mailboxes' state; null when it reads none itself. */
export type OwnEmailReader = (
  hours: number,
) => Promise<{ items: WorkerEmailActivity[]; mailboxes: OwnMailbox[] } | null>;

export function ownEmailReader(
  mailboxes: Pick<MailboxesRepository, 'list' | 'recentMessages'>,
  workerId: string,
  now: () => Date = () => new Date(),
): OwnEmailReader {
  return async (hours) => {
    const held = await mailboxes.list(workerId);
    if (held.length === 0) return null;
    const since = new Date(now().getTime() - hours * 3_600_000);
    const rows = await mailboxes.recentMessages(workerId, since, MAX_OWN_ITEMS);
    return { mailboxes: held.map(toOwnMailbox), items: rows.map(toOwnEmailActivity) };
  };
}

/** Each worker's own-mail reader when EMAIL_INGESTION_ENABLED is on; without it the worker has only the platform's. */
export function ownEmailReaders(
  enabled: boolean,
  mailboxes: MailboxesRepository,
): ((workerId: string) => OwnEmailReader) | undefined {
  if (!enabled) return undefined;
  return (workerId) => ownEmailReader(mailboxes, workerId);
}

/**
 * Both sources merged. The platform's failure is the tool's failure unless the worker has mailboxes of its own:
 * then their mail still comes back, with the platform's failure in words beside it.
 */
export async function workerEmailActivity(
  platform: () => Promise<EmailActivityResponse>,
  own: OwnEmailReader | undefined,
  hours: number,
  describeFailure: (err: unknown) => string,
): Promise<WorkerEmailActivityResponse> {
  const [fromPlatform, fromOwn] = await Promise.all([
    platform().then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    ),
    own ? own(hours) : Promise.resolve(null),
  ]);
  if ('error' in fromPlatform && !fromOwn) throw fromPlatform.error;
  const platformItems =
    'value' in fromPlatform
      ? fromPlatform.value.items.map((e): WorkerEmailActivity => ({ ...e, source: 'platform' }))
      : [];
  const items = [...platformItems, ...(fromOwn?.items ?? [])].sort(
    (a, b) => Date.parse(b.received_at) - Date.parse(a.received_at),
  );
  return {
    hours,
    since:
      'value' in fromPlatform
        ? fromPlatform.value.since
        : new Date(Date.now() - hours * 3_600_000).toISOString(),
    items,
    ...(fromOwn ? { own_mailboxes: fromOwn.mailboxes } : {}),
    ...('error' in fromPlatform ? { platform_error: describeFailure(fromPlatform.error) } : {}),
  };
}
