// The baselines the bridge is compared with: bare Express routes with `pg`, each written flat in one handler, that
// answer the same JSON as GET /api/assistant-bridge/portfolio.
//
// `/baseline/portfolio` does the same work per request as the bridge (the like-for-like target): a request id (the
// caller's when harmless), one pino log line when the response finishes (with the same fields, the tenant's slug
// included), helmet's security headers, `Cache-Control: no-store`, the Bearer key authenticated as the bridge does
// it (its hash, one lookup of the key with its tenant, flags and scopes, a constant-time comparison), the bridge
// flag and the `bridge:read` scope, the key's per-minute budget (express-rate-limit with its memory store and
// draft-8 headers, as the bridge has it without Redis), the query checked (no unknown parameters, `limit` 1–500, a
// well-formed cursor), then the tenant's maintained summary row (portfolio_summaries, kept by triggers, with the
// same staleness check) and the page in one statement, the answer sent without an ETag (its as_of makes one
// useless; the bridge sends none either). Neither caches anything. It uses the same libraries as the
// bridge where the bridge uses one for the job, and none of its structure: no route table, zod, routers, services
// or error classes. The bridge reads the page's rows as arrays; this handler reads them as objects, as a
// hand-written one would.
//
// `/bare/portfolio` does only the authentication and the statement: the figure without any of the above,
// reported beside the target to show what the rest costs.
//
// Both routes run the bridge's own two statements (imported, not copied): the same SQL on both sides. Today's
// London date (the staleness check's parameter) is the bridge's own function too, formatted once a minute.
import { randomUUID, timingSafeEqual } from 'node:crypto';
import express, { type Express, type Request, type RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import helmet from 'helmet';
import type pg from 'pg';
import type { Logger } from 'pino';
import { parseKey } from '../../apps/platform-bridge/src/features/auth/api-key-format.ts';
import {
  FIND_FOR_AUTH,
  type KeyRow,
} from '../../apps/platform-bridge/src/features/auth/api-key-repository.ts';
import { READ } from '../../apps/platform-bridge/src/features/portfolio/portfolio-repository.ts';
import { londonDate } from '../../apps/platform-bridge/src/lib/clock.ts';

/**
 * The baselines' authentication, as the bridge does it: the key's hash, the bridge's own lookup of the key with
 * its tenant, flags and scopes (as a prepared statement named `name`), a constant-time comparison. Undefined:
 * answer 401.
 */
export async function authenticateBaseline(
  pool: pg.Pool,
  authorization: string | undefined,
  name: string,
): Promise<KeyRow | undefined> {
  const key = parseKey((authorization ?? '').slice('Bearer '.length));
  if (!key.ok) return undefined;
  const { rows } = await pool.query<KeyRow>({ name, text: FIND_FOR_AUTH.text, values: [key.lookupPrefix] });
  const k = rows[0];
  const stored = k && Buffer.from(k.secret_hash, 'hex');
  const valid =
    k &&
    stored &&
    k.kind === key.kind &&
    !k.revoked &&
    stored.length === key.hash.length &&
    timingSafeEqual(stored, key.hash);
  return valid ? k : undefined;
}

// A row of the bridge's portfolio statement as an object: the summary's columns, then the page's (p_…); the first
// row carries the summary only, the others a property of the page only.
interface Row {
  properties_total: number;
  units_total: number;
  units_occupied: number;
  arrears_pence: number;
  rent_roll_monthly_pence: number;
  valid: number;
  expiring_soon: number;
  expired: number;
  missing: number;
  stale: number;
  open_deals: number;
  pipeline_value_pence: number;
  p_id: number | null;
  p_ref: string;
  p_line1: string;
  p_line2: string | null;
  p_town: string;
  p_county: string | null;
  p_postcode: string;
  p_property_type: string;
  p_bedrooms: number;
  p_letting_status: string;
  p_is_hmo: boolean;
  p_compliance_status: string | null;
  p_rent_pence: number | null;
  p_rent_frequency: string | null;
  p_arrears_pence: number;
  p_units_total: number;
  p_units_occupied: number;
  p_tenancy_status: string | null;
  p_tenancy_end_date: string | null;
  p_tenancy_is_periodic: boolean | null;
}

// The bridge's cursor format (base64url of `p:<last id>`).
const decodeCursor = (c: string) => {
  const m = /^p:([1-9][0-9]{0,9})$/.exec(Buffer.from(c, 'base64url').toString('utf8'));
  const id = m ? Number(m[1]) : 0;
  return id > 0 && id <= 2147483647 ? id : undefined;
};
const encodeCursor = (id: number) => Buffer.from(`p:${id}`).toString('base64url');

function portfolioJson(k: KeyRow, rows: Row[], limit: number) {
  // the statement's first row is the summary, the page's rows follow
  const s = rows[0]!;
  const pageRows = rows.slice(1, limit + 1);
  const last = pageRows[pageRows.length - 1];
  return {
    tenant: { slug: k.slug, name: k.name },
    as_of: new Date().toISOString(),
    summary: {
      properties_total: s.properties_total,
      units_total: s.units_total,
      units_occupied: s.units_occupied,
      units_vacant: Math.max(0, s.units_total - s.units_occupied),
      occupancy_rate: s.units_total ? Math.round((s.units_occupied / s.units_total) * 10_000) / 10_000 : 0,
      rent_roll_monthly_pence: s.rent_roll_monthly_pence,
      arrears_pence: s.arrears_pence,
      compliance: {
        valid: s.valid,
        expiring_soon: s.expiring_soon,
        expired: s.expired,
        missing: s.missing,
      },
      open_deals: s.open_deals,
      pipeline_value_pence: s.pipeline_value_pence,
    },
    properties: pageRows.map((p) => ({
      id: p.p_id,
      ref: p.p_ref,
      address: {
        line1: p.p_line1,
        line2: p.p_line2,
        town: p.p_town,
        county: p.p_county,
        postcode: p.p_postcode,
      },
      property_type: p.p_property_type,
      bedrooms: p.p_bedrooms,
      letting_status: p.p_letting_status,
      is_hmo: p.p_is_hmo,
      compliance_status: p.p_compliance_status ?? 'valid',
      rent_pence: p.p_rent_pence,
      rent_frequency: p.p_rent_frequency,
      arrears_pence: p.p_arrears_pence,
      units_total: p.p_units_total,
      units_occupied: p.p_units_occupied,
      tenancy_status: p.p_tenancy_status,
      tenancy_end_date: p.p_tenancy_end_date,
      tenancy_is_periodic: p.p_tenancy_is_periodic,
    })),
    next_cursor: rows.length - 1 > limit && last?.p_id ? encodeCursor(last.p_id) : null,
  };
}

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const bad = (res: express.Response, status: number) => res.status(status).end();
const keyOf = (req: Request) => (req as Request & { baselineKey?: KeyRow }).baselineKey!;

export function createBaselineApp(pool: pg.Pool, logger: Logger): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  const securityHeaders = helmet();
  // the budget the bench gives the bridge: lifted, so that it never answers 429; its bookkeeping still runs
  const budget = rateLimit({
    windowMs: 60_000,
    limit: 1_000_000_000,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    identifier: 'per-key',
    keyGenerator: (req) => `key:${keyOf(req).id}`,
  });

  // The same work as the bridge, flat: request id, log line, headers, key, flag, scope, budget, query, statement.
  const start: RequestHandler = (req, res, next) => {
    const started = process.hrtime.bigint();
    const incoming = req.get('x-request-id');
    const id = incoming && SAFE_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', id);
    res.on('finish', () => {
      const q = req.originalUrl.indexOf('?');
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.info(
        {
          request_id: id,
          method: req.method,
          path: q === -1 ? req.originalUrl : req.originalUrl.slice(0, q),
          status: res.statusCode,
          duration_ms: Math.round(ms * 10) / 10,
          // the bridge's line names the tenant too
          tenant: (req as Request & { baselineKey?: KeyRow }).baselineKey?.slug,
        },
        'request',
      );
    });
    securityHeaders(req, res, next);
  };
  const authenticate: RequestHandler = async (req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    const k = await authenticateBaseline(pool, req.get('authorization'), 'auth');
    if (!k) return void bad(res, 401);
    if (!k.flags.includes('assistant_external_bridge')) return void bad(res, 404);
    if (!k.scopes.includes('bridge:read')) return void bad(res, 403);
    (req as Request & { baselineKey?: KeyRow }).baselineKey = k;
    next();
  };
  app.get('/baseline/portfolio', start, authenticate, budget, async (req, res) => {
    const query = req.query as Record<string, unknown>;
    for (const name in query) if (name !== 'limit' && name !== 'cursor') return void bad(res, 400);
    const limit = query.limit === undefined ? 100 : Number(query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 500) return void bad(res, 400);
    let afterId = 0;
    if (query.cursor !== undefined) {
      const c = query.cursor;
      const id = typeof c === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(c) ? decodeCursor(c) : undefined;
      if (id === undefined) return void bad(res, 400);
      afterId = id;
    }
    const k = keyOf(req);
    const { rows } = await pool.query<Row>({
      name: 'portfolio',
      text: READ.text,
      values: [k.tenant_id, afterId, limit + 1, londonDate(new Date())],
    });
    if (!rows[0]) return void bad(res, 404);
    // the bridge refreshes stale rollups first; the benchmark's are fresh after its JSON check
    if (rows[0].stale) return void bad(res, 503);
    res.type('json').end(JSON.stringify(portfolioJson(k, rows, limit)));
  });

  // Only the key and the statement.
  app.get('/bare/portfolio', async (req, res) => {
    const k = await authenticateBaseline(pool, req.get('authorization'), 'auth');
    if (!k || !k.flags.includes('assistant_external_bridge')) return void bad(res, 401);
    const limit = req.query.limit === undefined ? 100 : Number(req.query.limit);
    const cursor = req.query.cursor;
    const { rows } = await pool.query<Row>({
      name: 'portfolio',
      text: READ.text,
      values: [
        k.tenant_id,
        (typeof cursor === 'string' && decodeCursor(cursor)) || 0,
        limit + 1,
        '1970-01-01',
      ],
    });
    if (!rows[0]) return void bad(res, 404);
    res.type('json').end(JSON.stringify(portfolioJson(k, rows, limit)));
  });
  return app;
}
