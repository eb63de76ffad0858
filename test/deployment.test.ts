import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

// No Docker engine runs on the development and CI machines, so the compose file and the Dockerfile are
// checked here for what can be checked without one: structure, references to files, and configuration names.
const root = path.resolve(import.meta.dirname, '..');
const read = (f: string) => readFileSync(path.join(root, f), 'utf8');

interface Service {
  build?: { context: string; args?: Record<string, string> };
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  volumes?: string[];
  ports?: string[];
}
const compose = parse(read('docker-compose.yml'), { merge: true }) as {
  name?: string;
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};

function workspaces(): string[] {
  return ['packages', 'apps'].flatMap((dir) =>
    readdirSync(path.join(root, dir))
      .map((name) => `${dir}/${name}`)
      .filter((p) => existsSync(path.join(root, p, 'package.json'))),
  );
}

describe('docker-compose.yml', () => {
  it('runs Postgres, Redis, migrations and the platform bridge, each with a health check or a completion gate', () => {
    const s = compose.services;
    expect(Object.keys(s)).toEqual(
      expect.arrayContaining(['postgres', 'redis', 'migrate', 'platform-bridge']),
    );
    for (const name of ['postgres', 'redis', 'platform-bridge'])
      expect(s[name]!.healthcheck?.test.length).toBeGreaterThan(0);
    expect(s['platform-bridge']!.depends_on?.migrate?.condition).toBe('service_completed_successfully');
    expect(s.migrate!.depends_on?.postgres?.condition).toBe('service_healthy');
  });

  it('runs the worker process as summary-worker: the same image, worker.ts, no port, after migrate and Redis; the gateway leaves its pollers to it', () => {
    const s = compose.services;
    const worker = s['summary-worker']!;
    expect(worker.image).toBe(s['agent-gateway']!.image);
    expect(worker.command).toEqual(['node', '--import', 'tsx', 'apps/agent-gateway/src/worker.ts']);
    expect(worker.ports).toBeUndefined();
    expect(worker.depends_on?.migrate?.condition).toBe('service_completed_successfully');
    expect(worker.depends_on?.redis?.condition).toBe('service_healthy');
    expect(s['agent-gateway']!.environment?.RUN_WORKER_IN_PROCESS).toBe('false');
    // it decrypts the bot tokens the gateway stored: the same key, or the same generated one in the same volume
    expect(worker.environment?.GATEWAY_SECRET_KEY).toBe(s['agent-gateway']!.environment?.GATEWAY_SECRET_KEY);
    expect(worker.volumes).toContain('gatewaydata:/app/.data');
  });

  it('passes each feature flag to every service that acts on it, and lets events reach the gateway by its name', () => {
    const s = compose.services;
    const gateway = s['agent-gateway']!.environment!;
    const worker = s['summary-worker']!.environment!;
    // the gateway serves the routes; the worker process runs the pollers, the queue and the mailboxes' sync
    for (const flag of [
      'AI_WORKERS_ENABLED',
      'PLATFORM_BRIDGE_ENABLED',
      'ASSISTANT_DAILY_SUMMARY_ENABLED',
      'EMAIL_INGESTION_ENABLED',
    ])
      expect(worker[flag], flag).toBe(gateway[flag]);
    expect(gateway.PLATFORM_EVENT_WEBHOOKS).toBeDefined();
    expect(gateway.PLATFORM_WEBHOOK_SECRET).toBeDefined();
    expect(s['platform-bridge']!.environment?.WEBHOOK_INTERNAL_HOSTS).toBe(
      '${WEBHOOK_INTERNAL_HOSTS:-agent-gateway}',
    );
    // and the gateway answers to that name (its DNS-rebinding guard refuses other hosts 403), loopback still
    expect(gateway.ALLOWED_HOSTS).toMatch(/^\$\{ALLOWED_HOSTS:-(.+,)?agent-gateway(,.+)?\}$/);
    expect(gateway.ALLOWED_HOSTS).toContain('127.0.0.1');
  });

  it('refers only to services, volumes and files that exist', () => {
    for (const [name, svc] of Object.entries(compose.services)) {
      for (const dep of Object.keys(svc.depends_on ?? {}))
        expect(compose.services, `${name} depends on ${dep}`).toHaveProperty(dep);
      for (const v of svc.volumes ?? []) {
        const source = v.split(':')[0]!;
        // a bind mount (the observability profile's configuration files) names a path of the repository
        if (source.startsWith('./'))
          expect(existsSync(path.join(root, source)), `${name} mounts ${v}`).toBe(true);
        else expect(compose.volumes, `${name} mounts ${v}`).toHaveProperty(source);
      }
      if (svc.build) expect(existsSync(path.join(root, svc.build.context, 'Dockerfile'))).toBe(true);
      for (const arg of svc.command ?? []) {
        if (/\.(ts|js|mjs)$/.test(arg))
          expect(existsSync(path.join(root, arg)), `${name} runs ${arg}`).toBe(true);
      }
    }
  });

  it('sets only configuration variables the platform bridge knows', () => {
    const config = read('apps/platform-bridge/src/config.ts');
    const env = compose.services['platform-bridge']!.environment ?? {};
    for (const key of Object.keys(env).filter(
      (k) => k.startsWith('PLATFORM_') || k === 'DEMO' || k === 'LOG_LEVEL',
    )) {
      expect(config, `config.ts defines ${key}`).toContain(`${key}:`);
    }
    expect(env.PLATFORM_HOST).toBe('0.0.0.0');
    expect(env.PLATFORM_DATABASE_URL).toMatch(/^postgresql:\/\/.+@postgres:5432\//);
  });
});

/** The variables a config.ts schema reads: its `NAME: ...` keys. */
function configKeys(file: string): string[] {
  return [...read(file).matchAll(/^ {2,6}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]!);
}
const bridgeKeys = configKeys('apps/platform-bridge/src/config.ts');
const gatewayKeys = configKeys('apps/agent-gateway/src/config.ts');

describe('configuration names', () => {
  it('finds the keys of both config.ts files', () => {
    expect(bridgeKeys).toEqual(expect.arrayContaining(['PLATFORM_PORT', 'DEMO', 'LOG_LEVEL']));
    expect(gatewayKeys).toEqual(
      expect.arrayContaining(['WEB_PORT', 'GATEWAY_SECRET_KEY', 'SESSION_TTL_DAYS']),
    );
  });

  it('.env.example lists every variable the apps read, and no other', () => {
    const example = [...read('.env.example').matchAll(/^([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]!);
    expect(new Set(example).size, 'no duplicates').toBe(example.length);
    expect([...example].sort()).toEqual([...new Set([...bridgeKeys, ...gatewayKeys])].sort());
  });

  it('docker-compose.yml sets only variables the app of that service reads', () => {
    // from the x-app anchor, which every app service shares (the bridge reads REDIS_URL once its limits use Redis)
    const shared = ['PLATFORM_DATABASE_URL', 'GATEWAY_DATABASE_URL', 'REDIS_URL', 'LOG_LEVEL'];
    for (const [service, keys] of [
      ['platform-bridge', bridgeKeys],
      ['agent-gateway', gatewayKeys],
      ['summary-worker', gatewayKeys],
    ] as const) {
      for (const key of Object.keys(compose.services[service]!.environment ?? {}))
        expect([...keys, ...shared], `${service} reads ${key}`).toContain(key);
    }
  });

  it('docker-compose.yml publishes the apps on the loopback interface only', () => {
    for (const service of ['platform-bridge', 'agent-gateway']) {
      const ports = compose.services[service]!.ports ?? [];
      expect(ports.length).toBeGreaterThan(0);
      for (const p of ports)
        expect(p, `${service} publishes ${p}`).toMatch(/^127\.0\.0\.1:\$\{[A-Z_]+_PORT:-\d+\}:\d+$/);
    }
    // the generated secret key (when GATEWAY_SECRET_KEY is unset) must outlive the container
    expect(compose.services['agent-gateway']!.volumes).toContain('gatewaydata:/app/.data');
  });
});

describe('docker-compose.yml on compose v2 and docker-compose 1.29, with stand-in images', () => {
  it('has no top-level name (1.29 refuses it)', () => {
    expect(compose).not.toHaveProperty('name');
  });

  it('takes its images and host ports from variables whose defaults are the official images and 4000/3000', () => {
    const s = compose.services;
    expect(s.postgres!.image).toBe('${POSTGRES_IMAGE:-postgres:17}');
    expect(s.redis!.image).toBe('${REDIS_IMAGE:-redis:7}');
    expect(s['platform-bridge']!.ports).toEqual(['127.0.0.1:${BRIDGE_PORT:-4000}:4000']);
    expect(s['agent-gateway']!.ports).toEqual(['127.0.0.1:${GATEWAY_PORT:-3000}:3000']);
    // the Dockerfile's default base and the compose file's are the same image
    const arg = /^ARG NODE_IMAGE=(\S+)$/m.exec(read('Dockerfile'))?.[1];
    for (const name of ['migrate', 'platform-bridge', 'agent-gateway', 'summary-worker'])
      expect(s[name]!.build?.args?.NODE_IMAGE, name).toBe(`\${NODE_IMAGE:-${arg}}`);
  });

  it('has a stand-in recipe for every image the smoke test replaces', () => {
    for (const name of ['node', 'postgres', 'redis']) {
      expect(existsSync(path.join(root, 'docker/stand-ins', name, 'Dockerfile')), name).toBe(true);
      expect(read(`docker/stand-ins/${name}/rootfs`)).toMatch(/^(bookworm|trixie)\b/m);
    }
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');

  it('builds on a current Node LTS and runs as a non-root user', () => {
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:(22|24)-/m);
    expect(dockerfile).toMatch(/^FROM \$\{NODE_IMAGE\}$/m);
    expect(dockerfile).toMatch(/^USER node$/m);
  });

  it('copies every workspace manifest before npm ci, so the lockfile installs', () => {
    const beforeCi = dockerfile.slice(0, dockerfile.indexOf('npm ci'));
    for (const ws of workspaces())
      expect(beforeCi, `${ws}/package.json copied`).toContain(`COPY ${ws}/package.json`);
  });

  it('copies only paths that exist', () => {
    for (const m of dockerfile.matchAll(/^COPY (?!--)(.+) \S+$/gm)) {
      for (const src of m[1]!.split(/\s+/))
        expect(existsSync(path.join(root, src)), `COPY ${src}`).toBe(true);
    }
  });
});
