import { Unprocessable } from '@pa/http-kit';
import { ImapFlow } from 'imapflow';

export interface ImapAccount {
  host: string;
  port: number;
  secure: boolean;
  username: string;
  password: string;
}

/** An IMAP client for the account, silent (imapflow logs through pino otherwise) and with bounded waits. */
export function imapClient(
  account: ImapAccount,
  timeoutMs: number,
  idle: { autoIdleDelay: number; maxIdleTime: number; socketTimeout: number } | null = null,
): ImapFlow {
  return new ImapFlow({
    host: account.host,
    port: account.port,
    secure: account.secure,
    auth: { user: account.username, pass: account.password },
    logger: false,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    // a sync's or a login's connection runs its commands and logs out: it has no use for IDLE
    ...(idle ?? { disableAutoIdle: true, socketTimeout: Math.max(timeoutMs, 60_000) }),
  });
}

/** What went wrong with an IMAP connection, in words, without the server's own text (which may echo input). */
export function imapFailure(err: unknown): string {
  const e = err as { authenticationFailed?: boolean; code?: string } | null;
  if (e?.authenticationFailed) return 'the server refused the username or password';
  switch (e?.code) {
    case 'ECONNREFUSED':
      return 'nothing answers at that server and port';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the server’s name was not found';
    case 'ETIMEDOUT':
    case 'CONNECT_TIMEOUT':
    case 'GREETING_TIMEOUT':
      return 'the server did not answer in time';
    default:
      return 'the connection to the server failed';
  }
}

/** Logs in and out once: 422 `mailbox-login-failed`, in words, when that is not possible. */
export async function tryImapLogin(account: ImapAccount, timeoutMs: number): Promise<void> {
  const client = imapClient(account, timeoutMs);
  // an error after connect (a dropped socket) must not be an unhandled 'error' event
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (err) {
    throw new Unprocessable(
      'mailbox-login-failed',
      `Could not log in to ${account.host}:${account.port}: ${imapFailure(err)}.`,
    );
  }
  await client.logout().catch(() => client.close());
}
