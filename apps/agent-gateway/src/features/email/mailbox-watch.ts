import type { ImapFlow } from 'imapflow';
import type { Logger } from 'pino';
import type { KeyCipher } from '../binding/key-cipher.ts';
import { type ImapConnectPolicy, imapClient } from './imap-login.ts';

// IMAP IDLE for the assistant's own mailboxes (docs/email.md): one quiet connection per healthy mailbox, with the
// INBOX open read-only, so that the server tells the worker process the moment mail arrives and that mailbox is
// synced at once rather than at the next poll. The watcher fetches nothing itself: the sync (with its lease,
// its rule re-check and its UID position) stays the only way mail comes in. A server without IDLE is left to
// the poll, as is a mailbox whose sync is failing (its backoff decides when it is tried again); a watcher whose
// connection drops is started again by the syncer's next pass while the mailbox is still healthy.

/** How long a quiet connection waits before it idles (short: nothing else runs on it). */
const IDLE_AFTER_MS = 500;
/** IDLE is broken and restarted this often, so that a silently dead connection is noticed... */
const IDLE_RESTART_MS = 4 * 60_000;
/** ...and a connection silent for longer than that is closed (servers send keep-alives every few minutes). */
const SILENT_MS = 5 * 60_000;

export interface WatchedMailbox {
  id: string;
  host: string;
  port: number;
  secure: boolean;
  username: string;
  passwordCiphertext: Uint8Array;
}

export interface MailboxWatchers {
  /** keeps exactly one watcher per listed mailbox: new ones are started, ones no longer listed are closed */
  watch(mailboxes: WatchedMailbox[]): void;
  /** the mailboxes whose IDLE connection is open and listening now */
  watching(): string[];
  /** the mailboxes found on a server that does not offer IDLE (left to the poll) */
  withoutIdle(): string[];
  close(): Promise<void>;
}

export function createMailboxWatchers(deps: {
  cipher: KeyCipher;
  imap: ImapConnectPolicy;
  logger: Logger;
  /** new mail arrived in the mailbox */
  onNewMail(mailboxId: string): void;
}): MailboxWatchers {
  const open = new Map<string, ImapFlow>();
  // those of `open` whose INBOX is selected: IDLE runs on them
  const listening = new Set<string>();
  // servers that do not offer IDLE are not asked again by this process
  const withoutIdle = new Set<string>();
  // mailboxes whose host is being vetted: not started twice meanwhile
  const starting = new Set<string>();
  let closed = false;

  async function start(m: WatchedMailbox): Promise<void> {
    starting.add(m.id);
    let client: ImapFlow;
    try {
      client = await imapClient(
        {
          host: m.host,
          port: m.port,
          secure: m.secure,
          username: m.username,
          password: deps.cipher.decrypt(m.passwordCiphertext),
        },
        deps.imap,
        { autoIdleDelay: IDLE_AFTER_MS, maxIdleTime: IDLE_RESTART_MS, socketTimeout: SILENT_MS },
      );
    } catch (err) {
      // a host the policy refuses now: the sync records why; the watcher is tried again at the next pass
      deps.logger.debug({ err, mailboxId: m.id }, 'imap watcher not started');
      return;
    } finally {
      starting.delete(m.id);
    }
    if (closed) return;
    open.set(m.id, client);
    client.on('error', (err: unknown) => deps.logger.debug({ err, mailboxId: m.id }, 'imap watcher error'));
    client.on('close', () => {
      if (open.get(m.id) !== client) return;
      open.delete(m.id);
      listening.delete(m.id);
    });
    client.on('exists', (e: { count: number; prevCount: number }) => {
      if (e.count > e.prevCount) deps.onNewMail(m.id);
    });
    try {
      await client.connect();
      if (!client.capabilities.has('IDLE')) {
        withoutIdle.add(m.id);
        await client.logout();
        return;
      }
      await client.mailboxOpen('INBOX', { readOnly: true });
      if (closed || open.get(m.id) !== client) await client.logout();
      else listening.add(m.id);
    } catch (err) {
      // the sync records failures in words; a watcher only gives up until the next pass
      deps.logger.debug({ err, mailboxId: m.id }, 'imap watcher could not start');
      client.close();
    }
  }

  function stopOne(id: string): void {
    const client = open.get(id);
    open.delete(id);
    listening.delete(id);
    if (client) void client.logout().catch(() => client.close());
  }

  return {
    watch(mailboxes) {
      if (closed) return;
      const wanted = new Set(mailboxes.map((m) => m.id));
      for (const id of [...open.keys()]) if (!wanted.has(id)) stopOne(id);
      for (const m of mailboxes) {
        if (!open.has(m.id) && !starting.has(m.id) && !withoutIdle.has(m.id)) void start(m);
      }
    },
    watching: () => [...listening],
    withoutIdle: () => [...withoutIdle],
    async close() {
      closed = true;
      const clients = [...open.values()];
      open.clear();
      listening.clear();
      await Promise.all(clients.map((c) => c.logout().catch(() => c.close())));
    },
  };
}
