import type { EmailActivity as ApiEmail, EmailActivityResponse, MailboxesResponse } from '@pa/contracts';
import type { EmailActivity } from '../../generated/prisma/client.ts';
import type { Clock } from '../../lib/clock.ts';
import type { EmailActivityRepository } from './email-activity-repository.ts';

/** At most this many messages are returned, the newest first; documented in the OpenAPI description. */
export const EMAIL_ACTIVITY_MAX_ITEMS = 1000;

export function toApiEmail(e: EmailActivity): ApiEmail {
  return {
    id: e.id,
    thread_id: e.threadId,
    direction: e.direction as ApiEmail['direction'],
    from: e.fromAddress,
    to: e.toAddresses,
    subject: e.subject,
    snippet: e.snippet,
    received_at: e.receivedAt.toISOString(),
    has_attachments: e.hasAttachments,
    category: e.category as ApiEmail['category'],
    requires_response: e.requiresResponse,
    linked: { property_id: e.propertyId, deal_id: e.dealId },
    mailbox: e.mailbox,
  };
}

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
      return { mailboxes: rows.map((m) => ({ address: m.address, polled_by_platform: true as const })) };
    },
  };
}
export type EmailActivityService = ReturnType<typeof createEmailActivityService>;
