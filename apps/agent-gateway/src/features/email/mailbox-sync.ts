import type { Readable } from 'node:stream';
import type { FetchMessageObject, ImapFlow } from 'imapflow';
import type { Logger } from 'pino';
import type { Prisma } from '../../generated/prisma/client.ts';
import type { MailboxSyncRepository } from './mailbox-sync-repository.ts';
import type { KeyCipher } from '../binding/key-cipher.ts';
import { type ImapConnectPolicy, imapClient, imapFailure } from './imap-login.ts';
import { attachmentNames, snippetOf, snippetPart } from './message-parts.ts';

// One sync of an assistant-held mailbox (docs/email.md): the rule re-checked first (the platform may have started
// polling the address since: then the mailbox stops, with the reason, and nothing is fetched), then the INBOX's
// messages above the stored UID position fetched (envelope, structure, and the first few KiB of the text part
// for the snippet; never a whole body), stored with the new position in one transaction, so that a restart
// fetches nothing twice. A failure is recorded in words and the next sync waits (capped exponential backoff).
// A lease on the row keeps one sync per mailbox at a time across processes; a crashed sync's lease runs out.

const LEASE_MS = 120_000;
const SNIPPET_SOURCE_BYTES = 4096;
const BACKOFF_FIRST_MS = 5_000;
const BACKOFF_MAX_MS = 10 * 60_000;

export interface MailboxSyncDeps {
  mailboxes: MailboxSyncRepository;
  cipher: KeyCipher;
  /** the addresses the platform polls for the worker's tenant, by rule key (throws when it cannot be asked) */
  platformPolled: (workerId: string) => Promise<Map<string, string>>;
  imap: ImapConnectPolicy;
  logger: Logger;
}

export type SyncOutcome =
  | { outcome: 'synced'; fetched: number }
  | { outcome: 'stopped' }
  | { outcome: 'failed'; error: string }
  | { outcome: 'busy' };

export function backoffMs(failures: number): number {
  return Math.min(BACKOFF_FIRST_MS * 2 ** Math.max(0, failures - 1), BACKOFF_MAX_MS);
}

async function readLimited(stream: Readable, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    chunks.push(b);
    size += b.length;
    if (size >= maxBytes) break;
  }
  stream.destroy();
  return Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8');
}

export async function syncMailbox(deps: MailboxSyncDeps, mailboxId: string): Promise<SyncOutcome> {
  const { mailboxes } = deps;
  const row = await mailboxes.lease(mailboxId, LEASE_MS);
  if (!row) return { outcome: 'busy' };

  const fail = async (error: string): Promise<SyncOutcome> => {
    const failures = row.failures + 1;
    await mailboxes.recordFailure(row.id, error, failures, new Date(Date.now() + backoffMs(failures)));
    return { outcome: 'failed', error };
  };

  let polled: Map<string, string>;
  try {
    polled = await deps.platformPolled(row.worker_id);
  } catch {
    return fail(
      'Porter could not ask the property platform which mailboxes it reads, so it fetched nothing.',
    );
  }
  const owner = polled.get(row.address_key);
  if (owner) {
    await mailboxes.stop(
      row.id,
      `Your property platform now reads ${owner}, so Porter stopped reading it and reads its email through the platform. Remove this mailbox here.`,
    );
    return { outcome: 'stopped' };
  }

  let client: ImapFlow;
  try {
    client = await imapClient(
      {
        host: row.host,
        port: row.port,
        secure: row.secure,
        username: row.username,
        password: deps.cipher.decrypt(row.password_ciphertext),
      },
      deps.imap,
    );
  } catch (err) {
    // the host is vetted at every sync: a name that now resolves inside the network is not connected to
    return fail(`Porter could not read the mailbox: ${imapFailure(err)}. It will try again.`);
  }
  client.on('error', (err: unknown) => deps.logger.debug({ err, mailboxId }, 'imap connection error'));
  try {
    await client.connect();
    const lock = await client.getMailboxLock('INBOX');
    let stored: { fetched: number; lastUid: bigint; validity: bigint };
    try {
      const opened = client.mailbox;
      const validity = BigInt(opened ? opened.uidValidity : 0);
      // a new UIDVALIDITY means the server renumbered the mailbox: start again from the first message
      const from = row.uid_validity === validity ? row.last_uid : 0n;
      const found: FetchMessageObject[] = [];
      if (opened && opened.exists > 0) {
        for await (const m of client.fetch(
          `${from + 1n}:*`,
          { uid: true, envelope: true, bodyStructure: true, internalDate: true },
          { uid: true },
        )) {
          if (BigInt(m.uid) > from) found.push(m);
        }
      }
      const messages: Prisma.EmailMessageCreateManyInput[] = [];
      for (const m of found) {
        const part = snippetPart(m.bodyStructure);
        let snippet = '';
        if (part) {
          const download = await client.download(String(m.uid), part.part, {
            uid: true,
            maxBytes: SNIPPET_SOURCE_BYTES,
          });
          if ('content' in download && download.content) {
            snippet = snippetOf(await readLimited(download.content, SNIPPET_SOURCE_BYTES), part.html);
          }
        }
        const from0 = m.envelope?.from?.[0];
        const date = m.internalDate ?? m.envelope?.date;
        messages.push({
          mailboxId: row.id,
          uidValidity: validity,
          uid: BigInt(m.uid),
          messageId: m.envelope?.messageId?.slice(0, 998) ?? null,
          fromAddress: (from0?.address ?? '').slice(0, 320),
          fromName: from0?.name?.slice(0, 200) || null,
          toAddresses: (m.envelope?.to ?? [])
            .flatMap((a) => (a.address ? [a.address.slice(0, 320)] : []))
            .slice(0, 50),
          subject: (m.envelope?.subject ?? '').slice(0, 998),
          receivedAt: date ? new Date(date) : new Date(),
          snippet,
          attachmentNames: attachmentNames(m.bodyStructure),
        });
      }
      const lastUid = messages.reduce<bigint>((max, m) => (BigInt(m.uid) > max ? BigInt(m.uid) : max), from);
      stored = { fetched: messages.length, lastUid, validity };
      await mailboxes.storeSync(row.id, messages, { uidValidity: validity, lastUid });
    } finally {
      lock.release();
    }
    await client.logout().catch(() => client.close());
    return { outcome: 'synced', fetched: stored.fetched };
  } catch (err) {
    client.close();
    return fail(`Porter could not read the mailbox: ${imapFailure(err)}. It will try again.`);
  }
}
