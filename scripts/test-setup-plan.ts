// The decisions of `npm test`'s set-up step (scripts/test-setup.ts), kept free of I/O so that they are tested on
// their own (test/test-setup.test.ts): what is missing → which Debian packages, which commands start a service,
// how pg_hba.conf lets the default test URL in, and what to tell a user who must do it themselves.

/** What the set-up step found on this machine. */
export interface Probe {
  /** root on Debian with apt-get: the step may install and start things itself */
  canFix: boolean;
  postgres: {
    /** the URL the tests use (TEST_DATABASE_URL or the default), password redacted */
    url: string;
    state: 'ok' | 'down' | 'auth-refused' | 'failed';
    /** a PostgreSQL server (not only the client) is installed */
    installed: boolean;
    /** clusters known to postgresql-common (pg_lsclusters) */
    clusters: Cluster[];
  };
  /** `installed`: the redis-server program is on the PATH */
  redis: { url: string; up: boolean; installed: boolean };
  /** the browser the browser tests drive; `custom` when CHROMIUM_PATH names it */
  chromium: { path: string; present: boolean; custom: boolean };
  dovecot: boolean;
}

export interface Cluster {
  version: string;
  name: string;
  port: number;
  online: boolean;
}

/** A command and its arguments, run without a shell. */
export type Command = string[];

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);
export const isLocal = (url: string) => LOOPBACK.has(new URL(url).hostname);
const portOf = (url: string, fallback: number) => Number(new URL(url).port || fallback);

/** Debian packages for what is missing (only what this machine can serve itself: local services). */
export function missingPackages(p: Probe): string[] {
  const pkgs: string[] = [];
  if (p.postgres.state === 'down' && isLocal(p.postgres.url) && !p.postgres.installed)
    pkgs.push('postgresql');
  // wherever REDIS_URL points, some tests start throwaway servers of their own (http-kit's redis-server.ts)
  if (!p.redis.installed) pkgs.push('redis-server');
  if (!p.chromium.present && !p.chromium.custom) pkgs.push('chromium');
  // the email tests start a throwaway IMAP server of their own from it
  if (!p.dovecot) pkgs.push('dovecot-imapd');
  return pkgs;
}

export function installCommands(pkgs: string[]): Command[] {
  if (pkgs.length === 0) return [];
  return [
    ['apt-get', 'update', '-qq'],
    // with Recommends, as the old CI step had them: Chromium's fonts among them (the screenshot tests lay text out)
    ['apt-get', 'install', '-y', '-qq', ...pkgs],
  ];
}

/** Parses `pg_lsclusters -h` (Ver Cluster Port Status Owner Data-directory Log-file). */
export function parseClusters(output: string): Cluster[] {
  return output
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f.length >= 4 && /^\d+(\.\d+)?$/.test(f[0]!) && /^\d+$/.test(f[2]!))
    .map(([version, name, port, status]) => ({
      version: version!,
      name: name!,
      port: Number(port),
      online: status!.startsWith('online'),
    }));
}

/** The cluster that serves the test URL's port. */
export function clusterFor(url: string, clusters: Cluster[]): Cluster | undefined {
  return clusters.find((c) => c.port === portOf(url, 5432));
}

export function startPostgres(c: Cluster): Command {
  return ['pg_ctlcluster', '--skip-systemctl-redirect', c.version, c.name, 'start'];
}

export function reloadPostgres(c: Cluster): Command {
  return ['pg_ctlcluster', '--skip-systemctl-redirect', c.version, c.name, 'reload'];
}

export function startRedis(url: string): Command {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  const port = String(portOf(url, 6379));
  // a throwaway cache for tests: nothing written to disk
  return [
    'redis-server',
    '--daemonize',
    'yes',
    '--bind',
    host,
    '--port',
    port,
    '--save',
    '',
    '--appendonly',
    'no',
  ];
}

/** The services to start, once the packages are there. */
export function startCommands(p: Probe): Command[] {
  const cmds: Command[] = [];
  if (p.postgres.state === 'down' && isLocal(p.postgres.url)) {
    const c = clusterFor(p.postgres.url, p.postgres.clusters);
    if (c && !c.online) cmds.push(startPostgres(c));
  }
  if (!p.redis.up && isLocal(p.redis.url)) cmds.push(startRedis(p.redis.url));
  return cmds;
}

export const HBA_MARK =
  '# added by scripts/test-setup.ts (npm test): the default TEST_DATABASE_URL has no password';

/**
 * pg_hba.conf with the test URL's user let in without a password on 127.0.0.1 only, ahead of Debian's
 * scram-sha-256 rule (the first matching line wins). Returns the text unchanged when the line is there already.
 */
export function trustLoopback(hba: string, user: string): string {
  if (hba.includes(HBA_MARK)) return hba;
  const rule = `${HBA_MARK}\nhost    all             ${user.padEnd(15)} 127.0.0.1/32            trust\n`;
  const lines = hba.split('\n');
  const first = lines.findIndex((l) => l.trim() !== '' && !l.trimStart().startsWith('#'));
  if (first === -1) return `${hba.replace(/\n?$/, '\n')}${rule}`;
  return [...lines.slice(0, first), rule + lines.slice(first).join('\n')].join('\n');
}

const quote = (arg: string) => (/^[\w./:=@,+-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`);
export const shell = (cmd: Command) => cmd.map(quote).join(' ');

/**
 * For a machine where the step may not fix things itself: what is wrong and the exact commands (as root on
 * Debian) that fix it. Empty when everything is there.
 */
export function advice(p: Probe): string[] {
  const out: string[] = [];
  const pkgs = missingPackages(p);
  const asRoot = (cmds: Command[]) =>
    cmds.map((c) => `  sudo ${c[0] === 'apt-get' ? 'DEBIAN_FRONTEND=noninteractive ' : ''}${shell(c)}`);
  if (pkgs.length > 0)
    out.push(`Missing: ${pkgs.join(', ')}. Install them with:`, ...asRoot(installCommands(pkgs)));
  if (p.postgres.state === 'down') {
    const c = clusterFor(p.postgres.url, p.postgres.clusters);
    const start = c
      ? shell(startPostgres(c))
      : 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start';
    out.push(
      isLocal(p.postgres.url)
        ? `PostgreSQL is not running at ${p.postgres.url}. Start it with:\n  sudo ${start}`
        : `PostgreSQL is not reachable at ${p.postgres.url} (TEST_DATABASE_URL).`,
    );
  }
  if (p.postgres.state === 'auth-refused') {
    out.push(
      `PostgreSQL at ${p.postgres.url} refused the login. Set TEST_DATABASE_URL to a role that may create databases, e.g.`,
      `  TEST_DATABASE_URL=postgresql://postgres:PASSWORD@127.0.0.1:5432 npm test`,
      `or let it in without a password on 127.0.0.1 (pg_hba.conf, then reload PostgreSQL):`,
      `  host all postgres 127.0.0.1/32 trust`,
    );
  }
  if (p.postgres.state === 'failed')
    out.push(`PostgreSQL at ${p.postgres.url} failed the probe; see the error above.`);
  if (!p.redis.up) {
    out.push(
      isLocal(p.redis.url)
        ? `Redis is not running at ${p.redis.url}. Start it with:\n  ${shell(startRedis(p.redis.url))}`
        : `Redis is not reachable at ${p.redis.url} (REDIS_URL).`,
    );
  }
  if (!p.chromium.present && p.chromium.custom)
    out.push(`CHROMIUM_PATH names ${p.chromium.path}, which does not exist.`);
  return out;
}
