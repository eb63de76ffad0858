import { isIP } from 'node:net';
import { AddressRefused, type HostPolicy, Unprocessable, vetHost } from '@pa/http-kit';
import { ImapFlow } from 'imapflow';

export interface ImapAccount {
  host: string;
  port: number;
  secure: boolean;
  username: string;
  password: string;
}

/**
 * Where the gateway may connect for a mailbox: public addresses only, unless the operator vouches for a host of its
 * own network (IMAP_INTERNAL_HOSTS). Without this, a caller with `workers:write` could make the gateway connect to
 * any host and port inside its network and tell open ports from closed ones by the answer.
 */
export interface ImapConnectPolicy {
  timeoutMs: number;
  internalHosts: readonly string[];
  /** for tests: how host names resolve */
  resolver?: HostPolicy['resolver'];
}

/**
 * An IMAP client for the account, silent (imapflow logs through pino otherwise) and with bounded waits. The host is
 * vetted first (AddressRefused when the policy refuses it) and the client connects to the vetted address, with the
 * name kept for TLS (SNI and the certificate check), so a DNS answer that changes after the check cannot redirect it.
 */
export async function imapClient(
  account: ImapAccount,
  policy: ImapConnectPolicy,
  idle: { autoIdleDelay: number; maxIdleTime: number; socketTimeout: number } | null = null,
): Promise<ImapFlow> {
  const [vetted] = await vetHost(account.host, {
    allowLoopback: false,
    internalHosts: policy.internalHosts,
    resolver: policy.resolver,
  });
  return new ImapFlow({
    host: vetted!.address,
    ...(isIP(account.host) ? {} : { servername: account.host }),
    port: account.port,
    secure: account.secure,
    auth: { user: account.username, pass: account.password },
    logger: false,
    connectionTimeout: policy.timeoutMs,
    greetingTimeout: policy.timeoutMs,
    // a sync's or a login's connection runs its commands and logs out: it has no use for IDLE
    ...(idle ?? { disableAutoIdle: true, socketTimeout: Math.max(policy.timeoutMs, 60_000) }),
  });
}

/**
 * What went wrong with an IMAP connection, in words, without the server's own text (which may echo input). Every
 * failure to reach an IMAP server reads the same (refused, silent, not IMAP, no such name), so that the answer
 * cannot tell an open port from a closed one.
 */
export function imapFailure(err: unknown): string {
  if (err instanceof AddressRefused && err.reason === 'address') return HOST_REFUSED;
  const e = err as { authenticationFailed?: boolean } | null;
  if (e?.authenticationFailed) return 'the server refused the username or password';
  return 'no IMAP server answered at that server and port';
}

const HOST_REFUSED =
  'that server is not on the public internet, and Porter connects only to public mail servers (an operator can allow named servers of its own network with IMAP_INTERNAL_HOSTS)';

/**
 * Logs in and out once: 422 `mailbox-host-refused` for a host the policy refuses (nothing is connected to), 422
 * `mailbox-login-failed`, in words, when the login is not possible.
 */
export async function tryImapLogin(account: ImapAccount, policy: ImapConnectPolicy): Promise<void> {
  let client: ImapFlow;
  try {
    client = await imapClient(account, policy);
  } catch (err) {
    if (err instanceof AddressRefused && err.reason === 'address') {
      throw new Unprocessable(
        'mailbox-host-refused',
        `Could not connect to ${account.host}: ${HOST_REFUSED}.`,
      );
    }
    if (!(err instanceof AddressRefused)) throw err;
    throw loginFailed(account, err);
  }
  // an error after connect (a dropped socket) must not be an unhandled 'error' event
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (err) {
    throw loginFailed(account, err);
  }
  await client.logout().catch(() => client.close());
}

const loginFailed = (account: ImapAccount, err: unknown) =>
  new Unprocessable(
    'mailbox-login-failed',
    `Could not log in to ${account.host}:${account.port}: ${imapFailure(err)}.`,
  );
