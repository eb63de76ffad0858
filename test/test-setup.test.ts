import { describe, expect, it } from 'vitest';
import {
  advice,
  HBA_MARK,
  installCommands,
  missingPackages,
  parseClusters,
  type Probe,
  startCommands,
  trustLoopback,
} from '../scripts/test-setup-plan.ts';

// The decisions of `npm test`'s set-up step (scripts/test-setup.ts): what is missing → which packages and
// commands. The step's real path (a stopped Redis started again) was run by hand, see the note.

const PG = 'postgresql://postgres@127.0.0.1:5432';
const REDIS = 'redis://127.0.0.1:6379';

function probe(over: {
  postgres?: Partial<Probe['postgres']>;
  redis?: Partial<Probe['redis']>;
  chromium?: Partial<Probe['chromium']>;
  dovecot?: boolean;
  canFix?: boolean;
}): Probe {
  return {
    canFix: over.canFix ?? true,
    postgres: { url: PG, state: 'ok', installed: true, clusters: [], ...over.postgres },
    redis: { url: REDIS, up: true, installed: true, ...over.redis },
    chromium: { path: '/usr/bin/chromium', present: true, custom: false, ...over.chromium },
    dovecot: over.dovecot ?? true,
  };
}

const LSCLUSTERS = `15  main    5432 down   postgres /var/lib/postgresql/15/main /var/log/postgresql/postgresql-15-main.log
16  tests   5433 online postgres /var/lib/postgresql/16/tests /var/log/postgresql/postgresql-16-tests.log
`;

describe('test set-up decisions', () => {
  it('asks for nothing when everything is there', () => {
    const p = probe({});
    expect(missingPackages(p)).toEqual([]);
    expect(installCommands(missingPackages(p))).toEqual([]);
    expect(startCommands(p)).toEqual([]);
    expect(advice(p)).toEqual([]);
  });

  it('maps each missing piece on a bare machine to its Debian package', () => {
    const p = probe({
      postgres: { state: 'down', installed: false },
      redis: { up: false, installed: false },
      chromium: { present: false },
      dovecot: false,
    });
    expect(missingPackages(p)).toEqual(['postgresql', 'redis-server', 'chromium', 'dovecot-imapd']);
    expect(installCommands(missingPackages(p))).toEqual([
      ['apt-get', 'update', '-qq'],
      ['apt-get', 'install', '-y', '-qq', 'postgresql', 'redis-server', 'chromium', 'dovecot-imapd'],
    ]);
  });

  it('installs no server for a remote URL, nor a browser CHROMIUM_PATH names', () => {
    const p = probe({
      postgres: { url: 'postgresql://ci@db.internal:5432', state: 'down', installed: false },
      redis: { url: 'redis://cache.internal:6379', up: false, installed: false },
      chromium: { path: '/opt/chrome', present: false, custom: true },
    });
    // only the redis-server program, which some tests start throwaway servers with
    expect(missingPackages(p)).toEqual(['redis-server']);
    expect(startCommands(p)).toEqual([]);
    expect(advice(p).slice(3)).toEqual([
      'PostgreSQL is not reachable at postgresql://ci@db.internal:5432 (TEST_DATABASE_URL).',
      'Redis is not reachable at redis://cache.internal:6379 (REDIS_URL).',
      'CHROMIUM_PATH names /opt/chrome, which does not exist.',
    ]);
  });

  it('starts the cluster that serves the URL’s port, and Redis on the URL’s port without persistence', () => {
    const clusters = parseClusters(LSCLUSTERS);
    expect(clusters).toEqual([
      { version: '15', name: 'main', port: 5432, online: false },
      { version: '16', name: 'tests', port: 5433, online: true },
    ]);
    const p = probe({
      postgres: { state: 'down', clusters },
      redis: { url: 'redis://127.0.0.1:6380', up: false },
    });
    expect(missingPackages(p)).toEqual([]);
    expect(startCommands(p)).toEqual([
      ['pg_ctlcluster', '--skip-systemctl-redirect', '15', 'main', 'start'],
      [
        'redis-server',
        '--daemonize',
        'yes',
        '--bind',
        '127.0.0.1',
        '--port',
        '6380',
        '--save',
        '',
        '--appendonly',
        'no',
      ],
    ]);
    // an online cluster on the port that still refuses connections is not started again
    const online = probe({
      postgres: { url: 'postgresql://postgres@127.0.0.1:5433', state: 'down', clusters },
    });
    expect(startCommands(online)).toEqual([]);
  });

  it('prints the exact commands where it may not run them', () => {
    const p = probe({
      canFix: false,
      postgres: { state: 'down', clusters: parseClusters(LSCLUSTERS) },
      redis: { up: false },
      dovecot: false,
    });
    expect(advice(p)).toEqual([
      'Missing: dovecot-imapd. Install them with:',
      '  sudo DEBIAN_FRONTEND=noninteractive apt-get update -qq',
      '  sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq dovecot-imapd',
      'PostgreSQL is not running at postgresql://postgres@127.0.0.1:5432. Start it with:\n  sudo pg_ctlcluster --skip-systemctl-redirect 15 main start',
      "Redis is not running at redis://127.0.0.1:6379. Start it with:\n  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save '' --appendonly no",
    ]);
  });

  it('tells which TEST_DATABASE_URL to set when the login is refused, and starts nothing', () => {
    const p = probe({ postgres: { state: 'auth-refused' } });
    expect(startCommands(p)).toEqual([]);
    expect(missingPackages(p)).toEqual([]);
    expect(advice(p).join('\n')).toMatch(
      /refused the login\. Set TEST_DATABASE_URL .*\n {2}TEST_DATABASE_URL=postgresql:\/\/postgres:PASSWORD@127\.0\.0\.1:5432 npm test/,
    );
  });
});

describe('pg_hba.conf of a PostgreSQL the set-up installed', () => {
  const DEBIAN = `# PostgreSQL Client Authentication Configuration File
# TYPE  DATABASE        USER            ADDRESS                 METHOD

local   all             postgres                                peer
local   all             all                                     peer
host    all             all             127.0.0.1/32            scram-sha-256
host    all             all             ::1/128                 scram-sha-256
`;

  it('lets the test user in from 127.0.0.1 ahead of the scram rule, once', () => {
    const after = trustLoopback(DEBIAN, 'postgres');
    const rules = after.split('\n').filter((l) => l.trim() && !l.startsWith('#'));
    expect(rules[0]).toMatch(/^host\s+all\s+postgres\s+127\.0\.0\.1\/32\s+trust$/);
    expect(rules.slice(1)).toEqual(DEBIAN.split('\n').filter((l) => l.trim() && !l.startsWith('#')));
    expect(after).toContain(HBA_MARK);
    expect(after.startsWith('# PostgreSQL Client Authentication')).toBe(true);
    expect(trustLoopback(after, 'postgres')).toBe(after);
    // nothing for IPv6 or other users
    expect(after.match(/trust/g)).toHaveLength(1);
  });
});
