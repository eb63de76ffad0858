import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { emptyIsUnset, envFlag, hostListSetting, logLevelSetting, parseEnv } from '@pa/http-kit';
import { z } from 'zod';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const MIGRATIONS_DIR = path.join(REPO_ROOT, 'prisma/platform/migrations');

const originListSetting = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? '')
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean),
  )
  .pipe(
    z.array(
      z
        .string()
        .regex(/^https?:\/\/[^/\s]+$/, 'must list origins as scheme://host[:port], with no path')
        .transform((o) => o.toLowerCase()),
    ),
  );

const ConfigSchema = z
  .object({
    PLATFORM_PORT: z.coerce.number().int().min(0).max(65535).default(4000),
    PLATFORM_HOST: z.string().min(1).default('127.0.0.1'),
    // An empty value means unset: the embedded database.
    PLATFORM_DATABASE_URL: emptyIsUnset(
      z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL'),
    ),
    PLATFORM_DATA_DIR: z.string().min(1).default(path.join(REPO_ROOT, '.data')),
    BRIDGE_RATE_LIMIT_PER_MIN: z.coerce.number().int().min(1).max(1_000_000).default(600),
    // rate-limit counters shared by every instance on this Redis; unset or unreachable: kept in this process
    REDIS_URL: emptyIsUnset(z.string().regex(/^rediss?:\/\//, 'must be a redis:// URL')),
    // phase 2: how long a proposal waits for review, and how many may wait per tenant
    PROPOSAL_TTL_DAYS: z.coerce.number().int().min(1).max(365).default(14),
    PROPOSAL_PENDING_LIMIT: z.coerce.number().int().min(1).max(100_000).default(100),
    TRUST_PROXY: z.coerce.number().int().min(0).max(10).default(0),
    // the platform's public origin (https://platform.example.com), for the links it gives of itself (the MCP
    // endpoint's RFC 9728 metadata); unset: each request's own scheme and host. Not PUBLIC_BASE_URL: that is the
    // gateway's, and both apps may share one environment.
    PLATFORM_PUBLIC_URL: emptyIsUnset(
      z
        .url({ protocol: /^https?$/, error: 'must be an http(s):// URL' })
        .transform((u) => u.replace(/\/+$/, '')),
    ),
    // browser origins (scheme://host[:port], comma-separated) whose pages may call the MCP endpoint; a request
    // with any other Origin is refused, one without (any client that is not a browser page) passes
    MCP_ALLOWED_ORIGINS: originListSetting,
    // where the MCP endpoint's metadata sends people for the guide; unset: /docs/mcp on this server
    MCP_DOCUMENTATION_URL: emptyIsUnset(z.url({ protocol: /^https?$/, error: 'must be an http(s):// URL' })),
    LOG_LEVEL: logLevelSetting,
    DEMO: envFlag(true),
    // signed events: encrypts endpoint secrets at rest; unset → a key generated in PLATFORM_DATA_DIR
    PLATFORM_SECRET_KEY: emptyIsUnset(z.string().min(32, 'must be 32 bytes as 64 hex characters or base64')),
    // http:// endpoints on a loopback address; unset → true, except with NODE_ENV=production
    WEBHOOK_ALLOW_HTTP_LOOPBACK: z.enum(['true', 'false', '1', '0', '']).optional(),
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
    WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(32),
    // host names of the operator's own network (a docker compose service) that endpoints may reach over http on
    // private addresses; link-local (cloud metadata) and other special ranges stay refused for them too
    WEBHOOK_INTERNAL_HOSTS: hostListSetting(),
    NODE_ENV: z.string().optional(),
    // Prometheus metrics (docs/operations.md, "Metrics"): off by default. On, they are served at GET /metrics on
    // PLATFORM_PORT with `Authorization: Bearer <METRICS_TOKEN>` (404 while no token is set), and without a token on
    // METRICS_PORT, a listener of their own bound to METRICS_HOST. The same names as the gateway's, since each app
    // has an environment of its own under docker compose; `npm start` gives both apps one, so there the bridge's
    // listener takes PLATFORM_METRICS_PORT when it is set (the gateway's keeps METRICS_PORT).
    METRICS_ENABLED: envFlag(false),
    METRICS_TOKEN: emptyIsUnset(z.string().min(32, 'must be at least 32 characters')),
    METRICS_PORT: emptyIsUnset(z.coerce.number().int().min(0).max(65535)),
    PLATFORM_METRICS_PORT: emptyIsUnset(z.coerce.number().int().min(0).max(65535)),
    METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  })
  .superRefine((c, ctx) => {
    const port = c.PLATFORM_METRICS_PORT ?? c.METRICS_PORT;
    if (port !== undefined && port !== 0 && port === c.PLATFORM_PORT) {
      ctx.addIssue({
        code: 'custom',
        path: [c.PLATFORM_METRICS_PORT === undefined ? 'METRICS_PORT' : 'PLATFORM_METRICS_PORT'],
        message: `must differ from PLATFORM_PORT (${c.PLATFORM_PORT}): it is a listener of its own`,
      });
    }
  })
  .transform(({ WEBHOOK_ALLOW_HTTP_LOOPBACK: loopback, PLATFORM_METRICS_PORT, ...rest }) => ({
    ...rest,
    METRICS_PORT: PLATFORM_METRICS_PORT ?? rest.METRICS_PORT,
    WEBHOOK_ALLOW_HTTP_LOOPBACK:
      loopback === undefined || loopback === ''
        ? rest.NODE_ENV !== 'production'
        : loopback === 'true' || loopback === '1',
  }));

export type Config = Readonly<z.output<typeof ConfigSchema>>;

/** Parsed once at start; every problem is reported, one line each, so an operator can fix them in one go. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return parseEnv(ConfigSchema, env);
}
