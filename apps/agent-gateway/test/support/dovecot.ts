import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '@pa/http-kit/testing';
import { ImapFlow } from 'imapflow';

// A throwaway IMAP server for the email tests (docs/email.md): Dovecot from the OS packages (dovecot-imapd, which
// .ci/run installs), started on a free loopback port with its own config, state and Maildir under a temporary
// directory, one user with a password, plaintext login on loopback (no TLS). It can be stopped and started again
// on the same port, for "the server is down, then back". Messages are put in with IMAP APPEND, as a mail server
// delivering them would leave them.

export interface TestImap {
  host: string;
  port: number;
  user: string;
  password: string;
  /** appends a raw RFC 5322 message to the INBOX */
  append(raw: string): Promise<void>;
  /** stops the server (the port then refuses connections) */
  stop(): Promise<void>;
  /** starts it again on the same port, with the same mail */
  start(): Promise<void>;
  /** stops it and deletes everything */
  close(): Promise<void>;
}

const DOVECOT = ['/usr/sbin/dovecot', 'dovecot'];

function dovecotBinary(): string {
  for (const bin of DOVECOT) {
    if (spawnSync(bin, ['--version'], { stdio: 'ignore' }).status === 0) return bin;
  }
  throw new Error(
    'Dovecot is not installed: the email tests need dovecot-imapd (apt-get install dovecot-imapd).',
  );
}

function config(dir: string, port: number, idle: boolean): string {
  return `protocols = imap
listen = 127.0.0.1
base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:${dir}/home/%u/Maildir
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/users
}
userdb {
  driver = static
  args = uid=nobody gid=nogroup home=${dir}/home/%u
}
service imap-login {
  chroot =
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
service anvil {
  chroot =
}
${idle ? '' : '# a server that does not offer IDLE (the capabilities after login, without it)\nimap_capability = IMAP4rev1 LITERAL+ SASL-IR LOGIN-REFERRALS ID ENABLE NAMESPACE UIDPLUS\n'}`;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Dovecot: ${what} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function startDovecot(
  opts: {
    user?: string;
    password?: string;
    /** false: the server does not offer IDLE */ idle?: boolean;
  } = {},
): Promise<TestImap> {
  const bin = dovecotBinary();
  const user = opts.user ?? 'porter@example.test';
  const password = opts.password ?? 'imap-test-password';
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pa-dovecot-'));
  for (const sub of ['run', 'state', 'home']) mkdirSync(path.join(dir, sub));
  // the mail processes run as `nobody`; the directory above must be traversable by them
  spawnSync('chmod', ['755', dir]);
  const nobody = spawnSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).stdout.trim();
  const nogroup = spawnSync('getent', ['group', 'nogroup'], { encoding: 'utf8' }).stdout.split(':')[2];
  if (nobody && nogroup) chownSync(path.join(dir, 'home'), Number(nobody), Number(nogroup));
  writeFileSync(path.join(dir, 'users'), `${user}:{PLAIN}${password}\n`);
  const port = await freePort();
  const conf = path.join(dir, 'dovecot.conf');
  writeFileSync(conf, config(dir, port, opts.idle ?? true));

  let child: ChildProcess | null = null;
  const start = async () => {
    const proc = spawn(bin, ['-F', '-c', conf], { stdio: 'ignore' });
    child = proc;
    await waitFor('accepting connections', async () => {
      if (proc.exitCode !== null)
        throw new Error(`Dovecot exited (${proc.exitCode}); see ${dir}/dovecot.log`);
      return accepts(port);
    });
  };
  const stop = async () => {
    const proc = child;
    child = null;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    proc.kill('SIGTERM');
    await exited;
    await waitFor('refusing connections', async () => !(await accepts(port)));
  };
  await start();

  return {
    host: '127.0.0.1',
    port,
    user,
    password,
    async append(raw) {
      const client = new ImapFlow({
        host: '127.0.0.1',
        port,
        secure: false,
        auth: { user, pass: password },
        logger: false,
      });
      await client.connect();
      try {
        await client.append('INBOX', raw);
      } finally {
        await client.logout();
      }
    },
    stop,
    start,
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A plain-text message as a mail server stores it. */
export function message(o: {
  from: string;
  to: string;
  subject: string;
  body: string;
  date?: Date;
  messageId?: string;
}): string {
  return [
    `From: ${o.from}`,
    `To: ${o.to}`,
    `Subject: ${o.subject}`,
    `Date: ${(o.date ?? new Date()).toUTCString()}`,
    `Message-ID: ${o.messageId ?? `<${Date.now()}.${Math.random().toString(36).slice(2)}@example.test>`}`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    o.body,
    '',
  ].join('\r\n');
}
