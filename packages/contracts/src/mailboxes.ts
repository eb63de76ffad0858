import { z } from 'zod';
import { EmailActivity, EmailActivityResponse } from './bridge.ts';
import { text } from './text.ts';

// The mailboxes an assistant worker reads itself (docs/email.md, EMAIL_INGESTION_ENABLED): never one the platform
// polls. camelCase like every gateway API; the password goes in and never comes out.

const HOSTNAME =
  /^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

export const WorkerMailboxRequest = z.strictObject({
  address: z.email('must be an email address').max(254),
  host: text().trim().regex(HOSTNAME, 'must be the IMAP server’s host name or IPv4 address'),
  port: z.number().int().min(1).max(65535).default(993),
  secure: z.boolean().default(true).describe('TLS from the start (port 993); false for a plain connection'),
  username: text().min(1).max(254),
  password: text().min(1).max(1024),
});

export const MailboxStatus = z.enum(['active', 'error', 'stopped']);

export const WorkerMailbox = z.strictObject({
  id: z.uuid(),
  workerId: z.uuid(),
  address: text(),
  host: text(),
  port: z.number().int(),
  secure: z.boolean(),
  username: text(),
  status: MailboxStatus.describe(
    '`active`: synced; `error`: the last sync failed and is retried; `stopped`: the platform now polls it',
  ),
  lastSyncAt: z.iso.datetime().nullable(),
  messagesStored: z.number().int().min(0),
  lastError: text().nullable().describe('the last failure in words'),
  createdAt: z.iso.datetime(),
});
export const WorkerMailboxesResponse = z.strictObject({ mailboxes: z.array(WorkerMailbox) });
export const MailboxParams = z.strictObject({
  workerId: z.uuid('must be a worker UUID'),
  mailboxId: z.uuid('must be a mailbox UUID'),
});

export type WorkerMailboxRequest = z.infer<typeof WorkerMailboxRequest>;
export type WorkerMailbox = z.infer<typeof WorkerMailbox>;
export type WorkerMailboxesResponse = z.infer<typeof WorkerMailboxesResponse>;

// ---- the worker's email activity: the platform's and its own, labelled by source --------------------------------

export const EmailSource = z
  .enum(['platform', 'assistant'])
  .describe(
    '`platform`: a mailbox the platform polls, read through the bridge; `assistant`: one the worker reads',
  );

/**
 * One message as the worker's email tool gives it: the bridge's fields (snake_case, as the model sees them) and
 * where it came from. The worker's own messages have a UUID id and are classified by the gateway; the
 * platform's keep the bridge's numeric id and classification.
 */
export const WorkerEmailActivity = EmailActivity.extend({
  id: z.union([z.number().int().positive(), z.uuid()]),
  source: EmailSource,
});

export const WorkerEmailActivityResponse = z.strictObject({
  hours: EmailActivityResponse.shape.hours,
  since: EmailActivityResponse.shape.since,
  items: z.array(WorkerEmailActivity),
  own_mailboxes: z
    .array(
      z.strictObject({
        address: text(),
        status: MailboxStatus,
        last_sync_at: z.iso.datetime().nullable(),
        last_error: text().nullable(),
      }),
    )
    .optional()
    .describe('the mailboxes the worker reads itself, when it has any'),
  platform_error: text()
    .optional()
    .describe('the platform could not be read: only the worker’s own mailboxes are in `items`'),
});

export type EmailSource = z.infer<typeof EmailSource>;
export type WorkerEmailActivity = z.infer<typeof WorkerEmailActivity>;
export type WorkerEmailActivityResponse = z.infer<typeof WorkerEmailActivityResponse>;
