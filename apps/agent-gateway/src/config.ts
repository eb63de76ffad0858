import { readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseEnv as parseDotEnv } from 'node:util';
import { emptyIsUnset, envFlag, hostListSetting, logLevelSetting, parseEnv } from '@pa/http-kit';
import { metricsWarnings } from '@pa/telemetry';
import { z } from 'zod';
import { DEFAULT_ANTHROPIC_MODEL, DEFAULT_OPENAI_MODEL } from './features/providers/model-defaults.ts';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const MIGRATIONS_DIR = path.join(REPO_ROOT, 'prisma/gateway/migrations');
export const WEB_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../web');

const list = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

const ConfigSchema = z
  .object({
    WEB_PORT: emptyIsUnset(z.coerce.number().int().min(0).max(65535)),
    PORT: emptyIsUnset(z.coerce.number().int().min(0).max(65535)),
    HOST: z.string().min(1).default('127.0.0.1'),
    CORS_ORIGIN: list.default(['*']),
    EMBED_ALLOWED_ORIGINS: list.default(["'self'"]),
    TRUST_PROXY: z.coerce.number().int().min(0).max(10).default(0),
    GATEWAY_DATABASE_URL: emptyIsUnset(
      z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL'),
    ),
    GATEWAY_DATA_DIR: z.string().min(1).default(path.join(REPO_ROOT, '.data')),
    REDIS_URL: z
      .string()
      .regex(/^rediss?:\/\//, 'must be a redis:// URL')
      .default('redis://127.0.0.1:6379'),
    REDIS_PREFIX: z.string().max(64).default('gateway:'),
    WEB_ENABLED: envFlag(true),
    AI_WORKERS_ENABLED: envFlag(false),
    PLATFORM_BRIDGE_ENABLED: envFlag(false),
    // the proposal tools (docs/gateway-api.md); they also need PLATFORM_BRIDGE_ENABLED, a bound key with bridge:propose
    // and the tenant's assistant_bridge_writes flag on the platform
    PLATFORM_BRIDGE_WRITES: envFlag(false),
    // the daily summary: its routes, the BullMQ queue's schedulers and worker; the queue's Redis key
    // prefix is configurable so that tests (and several gateways on one Redis) keep their queues apart
    ASSISTANT_DAILY_SUMMARY_ENABLED: envFlag(false),
    // the platform's signed events (docs/bridge-api.md): the ingress and the Standard Webhooks secret it verifies with
    PLATFORM_EVENT_WEBHOOKS: envFlag(false),
    // the assistant's own mailboxes (docs/email.md), and how long an IMAP server may take to answer
    EMAIL_INGESTION_ENABLED: envFlag(false),
    IMAP_TIMEOUT_MS: z.coerce.number().int().min(500).max(120_000).default(10_000),
    // IMAP servers are public ones only (no loopback, private, link-local or metadata address): these host names
    // (or IP literals) of the operator's own network may be reached on private and loopback addresses too
    IMAP_INTERNAL_HOSTS: hostListSetting(),
    EMAIL_POLL_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
    PLATFORM_WEBHOOK_SECRET: emptyIsUnset(
      z
        .string()
        .regex(/^whsec_[A-Za-z0-9+/=]{20,}$/, 'must be the endpoint secret the platform printed (whsec_…)'),
    ),
    SUMMARY_QUEUE_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9:_-]{1,64}$/, 'must be 1–64 characters of A–Z, a–z, 0–9, :, _ or -')
      .default('gateway-bull'),
    // the first retry's delay of a failed summary run; the backoff is exponential (delay, 2×delay) over 3 attempts
    SUMMARY_RETRY_BACKOFF_MS: z.coerce.number().int().min(10).max(3_600_000).default(30_000),
    WEB_WORKER_ID: emptyIsUnset(z.uuid('must be a worker UUID')),
    PLATFORM_BASE_URL: z.url().default('http://127.0.0.1:4000'),
    PLATFORM_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
    // the WhatsApp Cloud API (Meta's Graph API) with its version; tests point it at a loopback fake
    WHATSAPP_API_BASE_URL: z.url().default('https://graph.facebook.com/v21.0'),
    // 32 bytes as hex or base64; when unset, main.ts keeps a generated one in the data directory
    GATEWAY_SECRET_KEY: emptyIsUnset(z.string().min(32)),
    PROVIDER: z.string().default('local'),
    OPENAI_API_KEY: emptyIsUnset(z.string()),
    OPENAI_BASE_URL: emptyIsUnset(z.url()),
    OPENAI_MODEL: z.string().min(1).default(DEFAULT_OPENAI_MODEL),
    ANTHROPIC_API_KEY: emptyIsUnset(z.string()),
    ANTHROPIC_BASE_URL: emptyIsUnset(z.url()),
    ANTHROPIC_MODEL: z.string().min(1).default(DEFAULT_ANTHROPIC_MODEL),
    PROVIDER_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(120_000),
    LOCAL_PROVIDER_DELAY_MS: z.coerce.number().int().min(0).max(5000).default(0),
    CHAT_RATE_LIMIT_PER_MIN: z.coerce.number().int().min(1).max(100_000).default(30),
    MAX_STREAMS_PER_IP: z.coerce.number().int().min(1).max(10_000).default(10),
    // every call of the embedded chat's API (/api/embed/*, preflights included) per client IP and minute, before any
    // embed key is looked up (docs/embedding.md, "Budgets"); the keys' own budgets count messages after it
    EMBED_RATE_LIMIT_PER_MIN: z.coerce.number().int().min(1).max(100_000).default(120),
    // failed binds, channel connections and mailbox logins per 10 minutes, per client IP and per device, and per
    // workspace (all its callers together): each calls out with what the caller typed
    SETUP_FAILURES_PER_10_MIN: z.coerce.number().int().min(1).max(100_000).default(10),
    SETUP_FAILURES_PER_WORKSPACE_10_MIN: z.coerce.number().int().min(1).max(100_000).default(30),
    SSE_PING_MS: z.coerce.number().int().min(50).max(600_000).default(15_000),
    SESSION_TTL_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
    // the worker process (channel pollers) inside the gateway, as `npm start` runs it; false when it runs apart
    // (docker compose's summary-worker service)
    RUN_WORKER_IN_PROCESS: envFlag(true),
    // messaging channels (docs/channels.md): the Bot API's root (tests point it at a loopback fake), and the address
    // Telegram reaches this gateway at, which webhook mode needs
    TELEGRAM_API_BASE_URL: z
      .url()
      .default('https://api.telegram.org')
      .transform((u) => u.replace(/\/+$/, '')),
    PUBLIC_BASE_URL: emptyIsUnset(z.url().transform((u) => u.replace(/\/+$/, ''))),
    // access (docs/access.md): `none` (every caller is the operator) is the default, and allowed, on a loopback HOST
    // only; `token` asks every /api and /v1 call for a device token or the operator's GATEWAY_ADMIN_TOKEN
    GATEWAY_AUTH: emptyIsUnset(z.enum(['none', 'token'], { error: 'must be none or token' })),
    GATEWAY_ALLOW_INSECURE: envFlag(false),
    GATEWAY_ADMIN_TOKEN: emptyIsUnset(z.string().min(32, 'must be at least 32 characters')),
    // Host names this gateway answers to (DNS-rebinding guard); default: the loopback names and HOST
    ALLOWED_HOSTS: emptyIsUnset(list),
    LOG_LEVEL: logLevelSetting,
    // Prometheus metrics (docs/operations.md, "Metrics"): off by default. On, they are served at GET /metrics on this
    // port with `Authorization: Bearer <METRICS_TOKEN>` (404 while no token is set), and without a token on
    // METRICS_PORT, a listener of their own bound to METRICS_HOST
    METRICS_ENABLED: envFlag(false),
    METRICS_TOKEN: emptyIsUnset(z.string().min(32, 'must be at least 32 characters')),
    METRICS_PORT: emptyIsUnset(z.coerce.number().int().min(0).max(65535)),
    METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  })
  .superRefine((c, ctx) => {
    if (c.PLATFORM_EVENT_WEBHOOKS && !c.PLATFORM_WEBHOOK_SECRET) {
      ctx.addIssue({
        code: 'custom',
        path: ['PLATFORM_WEBHOOK_SECRET'],
        message: 'is required when PLATFORM_EVENT_WEBHOOKS is on (the secret `webhooks add` printed)',
      });
    }
    const available = ['local'];
    if (c.OPENAI_API_KEY || c.OPENAI_BASE_URL) available.push('openai');
    if (c.ANTHROPIC_API_KEY) available.push('anthropic');
    if (!available.includes(c.PROVIDER)) {
      ctx.addIssue({
        code: 'custom',
        path: ['PROVIDER'],
        message: `"${c.PROVIDER}" is not available; configured providers: ${available.join(', ')}`,
      });
    }
    const port = c.WEB_PORT ?? c.PORT ?? 3000;
    if (c.METRICS_PORT !== undefined && c.METRICS_PORT !== 0 && c.METRICS_PORT === port) {
      ctx.addIssue({
        code: 'custom',
        path: ['METRICS_PORT'],
        message: `must differ from the gateway's own port (${port}): it is a listener of its own`,
      });
    }
    if (c.GATEWAY_AUTH === 'none' && !isLoopback(c.HOST) && !c.GATEWAY_ALLOW_INSECURE) {
      ctx.addIssue({
        code: 'custom',
        path: ['GATEWAY_AUTH'],
        message: `none is allowed on a loopback HOST only (HOST is ${c.HOST}): set GATEWAY_AUTH=token and GATEWAY_ADMIN_TOKEN, or GATEWAY_ALLOW_INSECURE=true`,
      });
    }
  })
  .transform((c) => ({
    ...c,
    port: c.WEB_PORT ?? c.PORT ?? 3000,
    GATEWAY_AUTH: c.GATEWAY_AUTH ?? (isLoopback(c.HOST) ? 'none' : 'token'),
    ALLOWED_HOSTS: c.ALLOWED_HOSTS ?? defaultAllowedHosts(c.HOST),
  }));

/** The loopback names, and HOST unless it is a wildcard address (then name the public host in ALLOWED_HOSTS). */
function defaultAllowedHosts(host: string): string[] {
  const hosts = ['localhost', '127.0.0.1', '[::1]'];
  if (!['0.0.0.0', '::', '[::]'].includes(host) && !hosts.includes(host)) {
    hosts.push(host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);
  }
  return hosts;
}

export type Config = Readonly<z.infer<typeof ConfigSchema>>;

/**
 * `npm start` runs the gateway with settings of its own (the demo's flags, its worker, the bridge's URL) and
 * stores them in the data directory, so that the operator CLI, started by hand, sees the configuration of the
 * app it works beside. The process environment wins over the file.
 */
export const START_ENV_FILE = 'gateway.env';

function dataDirOf(env: NodeJS.ProcessEnv): string {
  return path.resolve(REPO_ROOT, env.GATEWAY_DATA_DIR || '.data');
}

/** The environment with the variables `npm start` stored in GATEWAY_DATA_DIR filled in where unset. */
export function withStartEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  let stored: NodeJS.Dict<string> = {};
  try {
    stored = parseDotEnv(readFileSync(path.join(dataDirOf(env), START_ENV_FILE), 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  return { ...stored, ...env };
}

/** Stores (or, with null, removes) the variables `npm start` gives the gateway, for withStartEnv. */
export function writeStartEnv(env: NodeJS.ProcessEnv, vars: Record<string, string | undefined> | null): void {
  const file = path.join(dataDirOf(env), START_ENV_FILE);
  if (!vars) {
    rmSync(file, { force: true });
    return;
  }
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const lines = Object.entries(vars)
    .filter(([, v]) => v !== undefined && !/[\n\r]/.test(v))
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  writeFileSync(
    file,
    `# Written by \`npm start\`: how it runs the gateway. The gateway and its CLI read it; the environment wins.\n${lines.join('\n')}\n`,
    { mode: 0o600 },
  );
}

/** Parsed once at start; every problem is reported, one line each. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return parseEnv(ConfigSchema, env);
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

/** Things worth a warning at start that do not stop the process. */
export function configWarnings(c: Config): string[] {
  const warnings: string[] = [];
  if (c.GATEWAY_AUTH === 'none' && !isLoopback(c.HOST)) {
    warnings.push(
      `GATEWAY_AUTH is none on a non-loopback HOST (${c.HOST}), allowed by GATEWAY_ALLOW_INSECURE=true: anyone who can reach this gateway acts as its operator.`,
    );
  }
  if (c.GATEWAY_AUTH === 'token' && !c.GATEWAY_ADMIN_TOKEN) {
    warnings.push(
      'GATEWAY_AUTH is token without GATEWAY_ADMIN_TOKEN: pair devices with the CLI (npm run gateway -- pairing create).',
    );
  }
  warnings.push(...metricsWarnings(c));
  if (c.PUBLIC_BASE_URL?.startsWith('https://') && c.TRUST_PROXY === 0) {
    warnings.push(
      `PUBLIC_BASE_URL is https:// but TRUST_PROXY is 0: behind a TLS proxy the gateway sees its requests as http:// (and every client as the proxy). Set TRUST_PROXY to the number of proxies in front of it.`,
    );
  }
  if (c.CORS_ORIGIN.includes('*') && !isLoopback(c.HOST)) {
    warnings.push(
      'CORS_ORIGIN is * on a non-loopback HOST: any web page can call this gateway. Set CORS_ORIGIN.',
    );
  }
  return warnings;
}
