import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseExposition } from '@pa/telemetry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startTestBridge, type TestBridge } from '../apps/platform-bridge/test/support/test-app.ts';
import { startTestGateway, type TestGateway } from '../apps/agent-gateway/test/support/test-app.ts';

// The observability profile of docker-compose.yml (docs/operations.md, "The observability profile") cannot be
// started here: its four images need a registry. What can be checked without one is checked: each configuration
// file parses and points at the services and ports the compose files define, a plain `up` is left as it was, and
// the dashboard's every query names a metric the apps export.

const root = path.resolve(import.meta.dirname, '..');
const read = (f: string) => readFileSync(path.join(root, f), 'utf8');
const run = promisify(execFile);

interface Service {
  image?: string;
  profiles?: string[];
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  volumes?: string[];
  ports?: string[];
}
interface ComposeFile {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}
const base = parse(read('docker-compose.yml'), { merge: true }) as ComposeFile;
const overlay = parse(read('docker-compose.observability.yml'), { merge: true }) as ComposeFile;

const PROFILE = 'observability';
const profiled = Object.entries(base.services).filter(([, s]) => s.profiles !== undefined);
const profileServices = ['otel-collector', 'jaeger', 'prometheus', 'grafana'];
const apps = ['platform-bridge', 'agent-gateway', 'summary-worker'];

/** A bind mount's host path in the repository, for a path inside the container (file or folder). */
function mountSource(service: string, target: string): string {
  const mount = (base.services[service]!.volumes ?? [])
    .map((v) => v.split(':'))
    .find(([, inside]) => inside === target);
  if (!mount) throw new Error(`${service} mounts nothing at ${target}`);
  return path.posix.normalize(mount[0]!);
}

/** host:port of a URL or an endpoint written without a scheme. */
function hostPort(endpoint: string): { host: string; port: number } {
  const url = new URL(/^[a-z]+:\/\//.test(endpoint) ? endpoint : `tcp://${endpoint}`);
  return { host: url.hostname, port: Number(url.port) };
}

describe('docker-compose.yml: the observability profile', () => {
  it('holds the collector, Jaeger, Prometheus and Grafana, and nothing else, under the profile', () => {
    expect(profiled.map(([name]) => name).sort()).toEqual([...profileServices].sort());
    for (const [name, svc] of profiled) expect(svc.profiles, name).toEqual([PROFILE]);
  });

  it('leaves a plain `up` as it was: the apps set no tracing or metrics variable, and no volume is added', () => {
    for (const name of apps) {
      const env = Object.keys(base.services[name]!.environment ?? {});
      expect(
        env.filter((k) => k.startsWith('OTEL_') || k.startsWith('METRICS_')),
        name,
      ).toEqual([]);
    }
    // a named volume would be created by every `up`, the profile's or not
    for (const [name, svc] of profiled)
      for (const v of svc.volumes ?? []) expect(v, `${name} mounts a file, not a volume`).toMatch(/^\.\//);
    // no service without the profile depends on one with it (compose would refuse the file)
    for (const [name, svc] of Object.entries(base.services).filter(([, s]) => !s.profiles))
      for (const dep of Object.keys(svc.depends_on ?? {})) expect(profileServices, name).not.toContain(dep);
  });

  it('pins each image to a version, overridable by a variable like the others', () => {
    for (const [name, svc] of profiled) {
      const m = /^\$\{([A-Z_]+_IMAGE):-([a-z0-9./-]+):([^}]+)\}$/.exec(svc.image ?? '');
      expect(m, `${name}: ${svc.image}`).not.toBeNull();
      expect(m![3], `${name} is pinned`).toMatch(/^v?\d+\.\d+\.\d+$/);
    }
  });

  it('publishes only the UIs, on 127.0.0.1; the collector and the metrics port not at all', () => {
    for (const [name, svc] of Object.entries(base.services))
      for (const p of svc.ports ?? [])
        expect(p, `${name} publishes ${p}`).toMatch(/^127\.0\.0\.1:\$\{[A-Z_]+_PORT:-\d+\}:\d+$/);
    expect(base.services['otel-collector']!.ports).toBeUndefined();
    const published = Object.values(base.services).flatMap((s) => s.ports ?? []);
    expect(published.filter((p) => p.endsWith(':9464'))).toEqual([]);
  });

  it('mounts configuration files that exist', () => {
    for (const [name, svc] of profiled)
      for (const v of svc.volumes ?? []) {
        const source = v.split(':')[0]!;
        expect(existsSync(path.join(root, source)), `${name} mounts ${source}`).toBe(true);
        expect(v, `${name} mounts ${source} read-only`).toMatch(/:ro$/);
      }
  });
});

/** The variables a config.ts schema reads: its `NAME: ...` keys (as test/deployment.test.ts reads them). */
function configKeys(file: string): string[] {
  return [...read(file).matchAll(/^ {2,6}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]!);
}
const keysOf: Record<string, string[]> = {
  'platform-bridge': configKeys('apps/platform-bridge/src/config.ts'),
  'agent-gateway': configKeys('apps/agent-gateway/src/config.ts'),
  'summary-worker': configKeys('apps/agent-gateway/src/config.ts'),
};

describe('docker-compose.observability.yml: tracing and metrics on, with the profile only', () => {
  it('changes only the apps: their environment, and a dependency on the collector', () => {
    expect(Object.keys(overlay.services).sort()).toEqual([...apps].sort());
    for (const [name, svc] of Object.entries(overlay.services)) {
      expect(Object.keys(svc).sort(), name).toEqual(['depends_on', 'environment']);
      // refused without the profile (the collector is not enabled then) rather than sending spans nowhere
      expect(svc.depends_on, name).toEqual({ 'otel-collector': { condition: 'service_started' } });
    }
  });

  it('sends every app’s spans to the collector’s OTLP/HTTP receiver', () => {
    const receiver = collector.receivers.otlp.protocols.http.endpoint;
    for (const name of apps) {
      const endpoint = overlay.services[name]!.environment!.OTEL_EXPORTER_OTLP_ENDPOINT!;
      expect(hostPort(endpoint), name).toEqual({ host: 'otel-collector', port: hostPort(receiver).port });
    }
  });

  it('turns metrics on with variables the apps read, on the compose network only', () => {
    for (const name of apps) {
      const env = overlay.services[name]!.environment!;
      expect(env.METRICS_ENABLED, name).toBe('true');
      expect(env.METRICS_HOST, name).toBe('0.0.0.0');
      expect(env.METRICS_PORT, name).toMatch(/^\d+$/);
    }
    for (const [name, svc] of Object.entries(overlay.services))
      for (const key of Object.keys(svc.environment ?? {}).filter((k) => !k.startsWith('OTEL_')))
        expect(keysOf[name], `${name} reads ${key}`).toContain(key);
  });
});

interface CollectorConfig {
  receivers: { otlp: { protocols: { http: { endpoint: string } } } };
  processors: Record<string, unknown>;
  exporters: Record<string, { endpoint: string }>;
  extensions?: Record<string, unknown>;
  service: {
    extensions?: string[];
    pipelines: Record<string, { receivers: string[]; processors: string[]; exporters: string[] }>;
  };
}
const collectorFile = mountSource('otel-collector', '/etc/otelcol-contrib/config.yaml');
const collector = parse(read(collectorFile)) as CollectorConfig;

describe('the collector’s configuration', () => {
  it('is the file the collector is started with', () => {
    expect(base.services['otel-collector']!.command).toEqual(['--config=/etc/otelcol-contrib/config.yaml']);
    expect(collectorFile).toBe('deploy/observability/otel-collector.yaml');
  });

  it('defines every component its pipelines use', () => {
    const { pipelines, extensions = [] } = collector.service;
    expect(Object.keys(pipelines)).toContain('traces');
    for (const [name, p] of Object.entries(pipelines)) {
      for (const r of p.receivers)
        expect(collector.receivers, `${name} receives from ${r}`).toHaveProperty([r]);
      for (const r of p.processors) expect(collector.processors, `${name} uses ${r}`).toHaveProperty([r]);
      for (const r of p.exporters) expect(collector.exporters, `${name} exports to ${r}`).toHaveProperty([r]);
    }
    for (const e of extensions) expect(collector.extensions, e).toHaveProperty([e]);
  });

  it('forwards the traces to Jaeger’s OTLP port on the compose network', () => {
    const traces = collector.service.pipelines.traces!;
    const targets = traces.exporters.map((e) => hostPort(collector.exporters[e]!.endpoint));
    expect(targets).toContainEqual({ host: 'jaeger', port: 4317 });
    for (const { host } of targets) expect(base.services).toHaveProperty([host]);
    // the collector waits for it
    expect(base.services['otel-collector']!.depends_on).toHaveProperty(['jaeger']);
  });

  it('listens on every interface of its container, which publishes nothing', () => {
    expect(hostPort(collector.receivers.otlp.protocols.http.endpoint)).toEqual({
      host: '0.0.0.0',
      port: 4318,
    });
  });
});

interface PrometheusConfig {
  global: { scrape_interval: string };
  scrape_configs: Array<{ job_name: string; static_configs: Array<{ targets: string[] }> }>;
}
const prometheusFile = mountSource('prometheus', '/etc/prometheus/prometheus.yml');
const prometheus = parse(read(prometheusFile)) as PrometheusConfig;
const scrapeTargets = new Map(
  prometheus.scrape_configs.map((c) => [c.job_name, c.static_configs.flatMap((s) => s.targets)]),
);

describe('prometheus.yml', () => {
  it('scrapes each app (the worker process too) at the METRICS_PORT the overlay gives it', () => {
    for (const name of apps) {
      const port = overlay.services[name]!.environment!.METRICS_PORT;
      expect(scrapeTargets.get(name), name).toEqual([`${name}:${port}`]);
    }
  });

  it('scrapes only services of the compose file, and the collector where its Prometheus exporter listens', () => {
    for (const targets of scrapeTargets.values())
      for (const t of targets) expect(base.services).toHaveProperty([hostPort(t).host]);
    const exporterPort = hostPort(collector.exporters.prometheus!.endpoint).port;
    expect(scrapeTargets.get('otel-collector')).toEqual([`otel-collector:${exporterPort}`]);
  });
});

interface Datasource {
  uid: string;
  type: string;
  url: string;
}
const provisioning = mountSource('grafana', '/etc/grafana/provisioning');
const datasources = (
  parse(read(`${provisioning}/datasources/datasources.yaml`)) as { datasources: Datasource[] }
).datasources;
const dashboardProviders = (
  parse(read(`${provisioning}/dashboards/dashboards.yaml`)) as {
    providers: Array<{ type: string; options: { path: string } }>;
  }
).providers;
const dashboardsDir = mountSource('grafana', dashboardProviders[0]!.options.path);

describe('Grafana’s provisioning', () => {
  it('has a Prometheus and a Jaeger data source at the ports their services listen on', () => {
    const byType = new Map(datasources.map((d) => [d.type, d]));
    expect(hostPort(byType.get('prometheus')!.url)).toEqual({ host: 'prometheus', port: 9090 });
    expect(hostPort(byType.get('jaeger')!.url)).toEqual({ host: 'jaeger', port: 16686 });
    // the same ports the UIs are published from
    expect(base.services.prometheus!.ports?.[0]).toMatch(/:9090$/);
    expect(base.services.jaeger!.ports?.[0]).toMatch(/:16686$/);
  });

  it('loads the dashboards folder that compose mounts, where the dashboard is, and makes it the home page', () => {
    expect(dashboardProviders).toHaveLength(1);
    expect(dashboardsDir).toBe('deploy/observability/dashboards');
    const home = base.services.grafana!.environment!.GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH!;
    expect(path.posix.dirname(home)).toBe(dashboardProviders[0]!.options.path);
    expect(statSync(path.join(root, dashboardsDir, path.posix.basename(home))).isFile()).toBe(true);
  });
});

interface Target {
  datasource?: { uid: string };
  /** Prometheus */
  expr?: string;
  /** Jaeger */
  queryType?: string;
  service?: string;
  operation?: string;
}
interface Panel {
  type: string;
  title: string;
  datasource?: { uid: string };
  targets?: Target[];
}
const dashboardFile = `${dashboardsDir}/property-assistant.json`;
const dashboard = JSON.parse(read(dashboardFile)) as { uid: string; title: string; panels: Panel[] };
const graphs = dashboard.panels.filter((p) => p.type !== 'row');
const uidOf = (p: Panel, t: Target) => t.datasource?.uid ?? p.datasource?.uid;
const typeOf = (uid: string | undefined) => datasources.find((d) => d.uid === uid)?.type;
/** Each PromQL query, with its panel's title. */
const promQueries = graphs.flatMap((p) =>
  (p.targets ?? [])
    .filter((t) => typeOf(uidOf(p, t)) === 'prometheus')
    .map((t) => ({ title: p.title, expr: t.expr! })),
);
const traceQueries = graphs.flatMap((p) =>
  (p.targets ?? []).filter((t) => typeOf(uidOf(p, t)) === 'jaeger').map((t) => ({ title: p.title, ...t })),
);

// Identifiers of PromQL that are not metric names.
const PROMQL_WORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'offset',
]);
const PROMQL_WORD_OPS = new Set(['and', 'or', 'unless']);

/** The metric names a PromQL expression reads (functions, label names, strings and durations removed). */
function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  return [...stripped.matchAll(/\b([a-zA-Z_:][a-zA-Z0-9_:]*)\b(\s*\()?/g)]
    .filter(([, name, call]) => !call && !PROMQL_WORDS.has(name!) && !PROMQL_WORD_OPS.has(name!))
    .map(([, name]) => name!)
    .filter((name) => !/^\d/.test(name));
}

describe('the dashboard', () => {
  it('parses, and names itself', () => {
    expect(dashboard.uid).toBe('property-assistant');
    expect(dashboard.title).toBe('Property assistant');
  });

  it('has the panels the operations guide promises', () => {
    const titles = graphs.map((p) => p.title);
    for (const wanted of [
      /^Chat latency by phase/,
      /^Chat turn duration by provider/,
      /^Slow chat turns/,
      /^Bridge-call latency from the gateway/,
      /^Bridge latency by route/,
      /^HTTP error rate by problem code$/,
      /^Queue depth by state$/,
      /^Outbox backlog$/,
      /^SSE streams open$/,
      /^DB pool use$/,
    ])
      expect(titles, String(wanted)).toContainEqual(expect.stringMatching(wanted));
  });

  it('queries only provisioned data sources, each panel at least once', () => {
    const uids = new Set(datasources.map((d) => d.uid));
    for (const p of graphs) {
      expect(p.targets?.length, p.title).toBeGreaterThan(0);
      expect(uids, p.title).toContain(p.datasource?.uid);
      for (const t of p.targets!) expect(uids, p.title).toContain(uidOf(p, t));
    }
    expect(promQueries.length + traceQueries.length).toBe(graphs.flatMap((p) => p.targets).length);
    for (const q of promQueries) expect(q.expr, q.title).toMatch(/\S/);
  });

  it('searches traces of a service and a span name the apps make', () => {
    expect(traceQueries.length).toBeGreaterThan(0);
    const sources = [
      'apps/platform-bridge/src/main.ts',
      'apps/agent-gateway/src/main.ts',
      'apps/agent-gateway/src/worker.ts',
      'apps/agent-gateway/src/features/chat/chat-service.ts',
    ].map(read);
    for (const q of traceQueries) {
      expect(q.queryType, q.title).toBe('search');
      expect(
        sources.some((src) => src.includes(`serviceName: '${q.service}'`)),
        `${q.title}: ${q.service}`,
      ).toBe(true);
      expect(
        sources.some((src) => src.includes(`'${q.operation}'`)),
        `${q.title}: ${q.operation}`,
      ).toBe(true);
    }
  });

  it('reads metric names out of PromQL (the helper the next test leans on)', () => {
    expect(
      metricNames(
        'histogram_quantile(0.95, sum by (le, route) (rate(pa_http_request_duration_seconds_bucket{app="platform-bridge"}[$__rate_interval])))',
      ),
    ).toEqual(['pa_http_request_duration_seconds_bucket']);
    expect(
      metricNames(
        'sum by (app) (rate(a_total{status=~"5.."}[5m])) / on (app) sum by (app) (rate(b_total[5m]))',
      ),
    ).toEqual(['a_total', 'b_total']);
    expect(metricNames('sum(pa_outbox_pending) or vector(0)')).toEqual(['pa_outbox_pending']);
  });
});

/** The series names a family of this type is scraped as. */
function seriesOf(family: string, type: string): string[] {
  if (type === 'histogram') return [`${family}_bucket`, `${family}_sum`, `${family}_count`];
  if (type === 'summary') return [family, `${family}_sum`, `${family}_count`];
  return [family];
}

describe('the dashboard’s queries', () => {
  // What the apps export: both started in-process with metrics on (on the real PostgreSQL and Redis, as their own
  // metrics tests start them), and scraped. Every family is listed by its TYPE line even before it has a sample.
  let bridge: TestBridge | undefined;
  let gateway: TestGateway | undefined;
  const exported = new Map<string, string>();

  beforeAll(async () => {
    [bridge, gateway] = await Promise.all([
      startTestBridge({ metrics: {} }),
      startTestGateway({ env: { METRICS_ENABLED: 'true' } }),
    ]);
    for (const text of await Promise.all([bridge.metrics.scrape(), gateway.deps.metrics.scrape()]))
      for (const [name, type] of parseExposition(text).types) exported.set(name, type);
  });
  afterAll(async () => {
    await Promise.all([bridge?.close(), gateway?.close()]);
  });

  it('read only series the apps export', () => {
    const series = new Set([...exported].flatMap(([family, type]) => seriesOf(family, type)));
    expect(series).toContain('pa_http_requests_total');
    const unknown: string[] = [];
    for (const q of promQueries)
      for (const name of metricNames(q.expr)) if (!series.has(name)) unknown.push(`${q.title}: ${name}`);
    expect(unknown).toEqual([]);
  });

  it('take quantiles of histograms only, and rates of counters and histograms only', () => {
    const wrong: string[] = [];
    for (const { title, expr } of promQueries) {
      for (const [, name] of expr.matchAll(/histogram_quantile\([^,]+,[^]*?\b(\w+)_bucket\b/g))
        if (exported.get(name!) !== 'histogram') wrong.push(`${title}: quantile of ${name}`);
      for (const [, name] of expr.matchAll(/\b(?:rate|increase)\((\w+)/g)) {
        const family = name!.replace(/_(bucket|sum|count)$/, '');
        if (!['counter', 'histogram'].includes(exported.get(name!) ?? exported.get(family) ?? ''))
          wrong.push(`${title}: rate of ${name}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

/** `docker compose` (v2) or docker-compose (1.29), as scripts/compose-smoke/engine.ts finds one; null if neither. */
function composeCommand(): string[] | null {
  if (spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' }).status === 0)
    return ['docker', 'compose'];
  if (spawnSync('docker-compose', ['version'], { stdio: 'ignore' }).status === 0) return ['docker-compose'];
  return null;
}

describe('both compose files together', () => {
  const compose = composeCommand();

  it('pass dclint’s Compose Specification schema and rules', async () => {
    // exits non-zero on any error or warning
    await run(
      path.join(root, 'node_modules/.bin/dclint'),
      ['docker-compose.yml', 'docker-compose.observability.yml', '--max-warnings', '0'],
      { cwd: root },
    );
  });

  // `config` reads, merges and validates the files; it pulls nothing and needs no engine. `npm run test:compose`
  // installs a compose command as root; where none is installed, the test above is what checks the files.
  it(`merge as intended under the profile${compose ? ` (${compose.join(' ')} config)` : ' (no compose command installed: the files are merged by hand)'}`, async () => {
    let merged: ComposeFile;
    if (compose) {
      const { stdout } = await run(
        compose[0]!,
        [
          ...compose.slice(1),
          '--profile',
          PROFILE,
          '-f',
          'docker-compose.yml',
          '-f',
          'docker-compose.observability.yml',
          'config',
        ],
        { cwd: root, env: { ...process.env, COMPOSE_PROFILES: '' } },
      );
      merged = parse(stdout) as ComposeFile;
    } else {
      merged = structuredClone(base);
      for (const [name, svc] of Object.entries(overlay.services)) {
        const into = merged.services[name]!;
        into.environment = { ...into.environment, ...svc.environment };
        into.depends_on = { ...into.depends_on, ...svc.depends_on };
      }
    }
    for (const name of profileServices) expect(merged.services).toHaveProperty([name]);
    for (const name of apps) {
      const svc = merged.services[name]!;
      expect(svc.environment?.OTEL_EXPORTER_OTLP_ENDPOINT, name).toBe('http://otel-collector:4318');
      // the overlay adds to the base file's settings, it does not replace them
      expect(svc.environment?.REDIS_URL, name).toBe('redis://redis:6379');
      expect(Object.keys(svc.depends_on ?? {}), name).toEqual(
        expect.arrayContaining(['migrate', 'redis', 'otel-collector']),
      );
    }
    expect(merged.services['agent-gateway']!.environment?.METRICS_ENABLED).toBe('true');
  });
});
