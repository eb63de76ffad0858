import type { EmailActivity as ApiEmail, MailboxesResponse } from '@pa/contracts';
import type { EmailActivity } from '../../generated/prisma/client.ts';

/** A stored message as the bridge answers it (GET /email-activity). */
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

/** A mailbox the platform polls, as GET /mailboxes lists it. */
export const toApiMailbox = (m: { address: string }): MailboxesResponse['mailboxes'][number] => ({
  address: m.address,
  polled_by_platform: true,
});
