import type { EmailActivityResponse, MailboxesResponse } from '@pa/contracts';
import type { Clock } from '../../lib/clock.ts';
import { toApiEmail, toApiMailbox } from './email-activity-mapper.ts';
import type { EmailActivityRepository } from './email-activity-repository.ts';

/** At most this many messages are returned, the newest first; documented in the OpenAPI description. */
export const EMAIL_ACTIVITY_MAX_ITEMS = 1000;

export function createEmailActivityService(deps: { email: EmailActivityRepository; clock: Clock }) {
  const { email, clock } = deps;
  return {
    async listActivity(tenantId: number, hours: number): Promise<EmailActivityResponse> {
      const since = new Date(clock.now().getTime() - hours * 3_600_000);
      const rows = await email.listSince(tenantId, since, EMAIL_ACTIVITY_MAX_ITEMS);
      return { hours, since: since.toISOString(), items: rows.map(toApiEmail) };
    },
    async listMailboxes(tenantId: number): Promise<MailboxesResponse> {
      const rows = await email.listMailboxes(tenantId);
      return { mailboxes: rows.map(toApiMailbox) };
    },
  };
}
export type EmailActivityService = ReturnType<typeof createEmailActivityService>;
