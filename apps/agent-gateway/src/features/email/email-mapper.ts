import type { WorkerEmailActivity, WorkerEmailActivityResponse, WorkerMailbox } from '@pa/contracts';
import type { Db } from '../../lib/db.ts';
import { classifyEmail, needsReply } from './email-classify.ts';
import { mailboxKey } from './mailbox-address.ts';
import type { MailboxesRepository } from './mailboxes-repository.ts';

type MailboxRow = NonNullable<Awaited<ReturnType<Db['mailbox']['findFirst']>>>;
type MessageRow = Awaited<ReturnType<MailboxesRepository['recentMessages']>>[number];

export type OwnMailbox = NonNullable<WorkerEmailActivityResponse['own_mailboxes']>[number];

/** A worker's own mailbox as its API answers it: never the password. */
export function toApiMailbox(m: MailboxRow): WorkerMailbox {
  return {
    id: m.id,
    workerId: m.workerId,
    address: m.address,
    host: m.host,
    port: m.port,
    secure: m.secure,
    username: m.username,
    status: m.status as WorkerMailbox['status'],
    lastSyncAt: m.lastSyncAt?.toISOString() ?? null,
    messagesStored: m.messagesStored,
    lastError: m.lastError,
    createdAt: m.createdAt.toISOString(),
  };
}

/** The state of a mailbox the worker reads itself, beside its email activity. */
export function toOwnMailbox(m: MailboxRow): OwnMailbox {
  return {
    address: m.address,
    status: m.status as OwnMailbox['status'],
    last_sync_at: m.lastSyncAt?.toISOString() ?? null,
    last_error: m.lastError,
  };
}

/** A stored message of the worker's own mailboxes as one item of its email activity. */
export function toOwnEmailActivity(m: MessageRow): WorkerEmailActivity {
  // a copy of the mailbox's own sent mail (Bcc to self, a shared inbox) counts as outbound
  const outbound = mailboxKey(m.fromAddress) === m.mailbox.addressKey;
  return {
    id: m.id,
    source: 'assistant',
    thread_id: m.messageId ?? `${m.mailboxId}:${m.uidValidity}:${m.uid}`,
    direction: outbound ? 'outbound' : 'inbound',
    from: m.fromAddress,
    to: m.toAddresses,
    subject: m.subject,
    snippet: m.snippet,
    received_at: m.receivedAt.toISOString(),
    has_attachments: m.attachmentNames.length > 0,
    category: classifyEmail(m.subject, m.snippet),
    requires_response: !outbound && needsReply(m.fromAddress, m.subject, m.snippet),
    linked: { property_id: null, deal_id: null },
    mailbox: m.mailbox.address,
  };
}
