import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { Clock } from '../../lib/clock.ts';
import { Forbidden, NotFound, Unauthorized } from '@pa/http-kit';
import { hashesEqual, KEY_PREFIX, type KeyKind, parseKey } from './api-key-format.ts';
import type { ApiKeyRepository } from './api-key-repository.ts';
import { ADMIN_SCOPES, type Scope } from './scopes.ts';

// The realm names which API refused the key: the bridge (plat_ keys) or the review queue's admin API (padm_).
const REALM = { remote: 'assistant-bridge', admin: 'review-queue' } as const satisfies Record<
  KeyKind,
  string
>;

const InvalidKey = (kind: KeyKind, detail: string) =>
  new Unauthorized('invalid-api-key', detail, { realm: REALM[kind], error: 'invalid_token' });

export interface AuthContext {
  keyId: number;
  tenantId: number;
  tenantSlug: string;
  tenantName: string;
  scopes: string[];
  flags: ReadonlySet<string>;
  /** the admin an admin key names (the audit trail's actor); null for a remote key */
  adminEmail: string | null;
}

declare global {
  namespace Express {
    interface Request {
      auth?: AuthContext;
    }
  }
}

// Names under which people paste keys into URLs. Such a request is refused even if the header is fine:
// a key in a URL ends up in proxy logs and browser history.
const QUERY_KEY_NAMES = new Set(['api_key', 'apikey', 'key', 'token', 'access_token', 'auth']);
const LAST_USED_RESOLUTION_MS = 60_000;
const LAST_USED_MAP_MAX = 10_000;

function keyInQuery(query: Record<string, unknown>): boolean {
  return Object.entries(query).some(
    ([name, value]) =>
      QUERY_KEY_NAMES.has(name.toLowerCase()) || (typeof value === 'string' && /^(plat|padm)_/.test(value)),
  );
}

export function createAuthenticator(deps: { keys: ApiKeyRepository; clock: Clock; logger: Logger }) {
  const { keys, clock, logger } = deps;
  // Last use is kept to the minute so that a busy key does not write on every request: this process remembers
  // when it last recorded each key's use (epoch ms), and the repository's UPDATE is conditional, so that other
  // instances and racing requests add no second write within the minute either. Failures only cost accuracy.
  const lastRecorded = new Map<number, number>();

  function recordUse(tenantId: number, keyId: number, storedMs: number | null): void {
    const now = clock.now();
    const last = Math.max(lastRecorded.get(keyId) ?? -Infinity, storedMs ?? -Infinity);
    if (now.getTime() - last < LAST_USED_RESOLUTION_MS) return;
    if (lastRecorded.size >= LAST_USED_MAP_MAX) forgetStale(now.getTime());
    lastRecorded.set(keyId, now.getTime());
    keys.touch(tenantId, keyId, now).catch((err: unknown) => {
      lastRecorded.delete(keyId);
      logger.warn({ err }, 'could not record key use');
    });
  }

  // entries older than the resolution decide nothing the stored time would not: drop them to bound the map
  function forgetStale(nowMs: number): void {
    for (const [id, at] of lastRecorded) {
      if (nowMs - at >= LAST_USED_RESOLUTION_MS) lastRecorded.delete(id);
    }
    if (lastRecorded.size >= LAST_USED_MAP_MAX) lastRecorded.clear();
  }

  async function authenticate(header: string | undefined, query: Record<string, unknown>, kind: KeyKind) {
    if (keyInQuery(query))
      throw InvalidKey(kind, 'API keys are not accepted in the query string; use the Authorization header.');
    if (!header) throw InvalidKey(kind, 'Send the API key as `Authorization: Bearer <key>`.');
    const m = /^Bearer ([^\s]+)$/i.exec(header.trim());
    if (!m) throw InvalidKey(kind, 'The Authorization header must be `Bearer <key>`.');
    const parsed = parseKey(m[1]!);
    if (!parsed.ok) throw InvalidKey(kind, 'The API key is malformed.');
    if (parsed.kind !== kind) throw InvalidKey(kind, `This API takes \`${KEY_PREFIX[kind]}\` keys only.`);
    const row = await keys.findForAuth(parsed.lookupPrefix);
    // Unknown, revoked and wrong-secret keys get the same answer so that the reply reveals nothing.
    if (
      !row ||
      row.kind !== kind ||
      row.revoked ||
      !hashesEqual(parsed.hash, Buffer.from(row.secret_hash, 'hex'))
    ) {
      throw InvalidKey(kind, 'The API key is not valid or has been revoked.');
    }
    recordUse(row.tenant_id, row.id, row.last_used_ms);
    return {
      keyId: row.id,
      tenantId: row.tenant_id,
      tenantSlug: row.slug,
      tenantName: row.name,
      scopes: row.scopes,
      flags: new Set(row.flags),
      adminEmail: row.admin_email,
    } satisfies AuthContext;
  }

  return {
    /** Authenticates a remote (plat_) key and checks that the tenant has the bridge flag. */
    bridge(): RequestHandler {
      return async (req, _res, next) => {
        const auth = await authenticate(
          req.get('authorization'),
          req.query as Record<string, unknown>,
          'remote',
        );
        req.auth = auth;
        if (!auth.flags.has('assistant_external_bridge')) {
          throw new NotFound('bridge-not-enabled', 'The assistant bridge is not enabled for this tenant.');
        }
        next();
      };
    },

    /**
     * Authenticates an admin (padm_) key: the review queue's and the remote-access settings'. A remote key here is
     * as invalid as an admin key on the bridge: each API takes its own kind only. The review queue's routes check
     * its flag themselves (requireFlag); the remote-access routes need none, being where the flags are switched.
     */
    admin(): RequestHandler {
      return async (req, _res, next) => {
        req.auth = await authenticate(
          req.get('authorization'),
          req.query as Record<string, unknown>,
          'admin',
        );
        next();
      };
    },
  };
}

/** Answers 404 `code` unless the caller's tenant has `flag` (read with the key, so a switch applies at once). */
export function requireFlag(flag: string, code: string, detail: string): RequestHandler {
  return (req, _res, next) => {
    if (!req.auth?.flags.has(flag)) throw new NotFound(code, detail);
    next();
  };
}

export function requireScope(scope: Scope): RequestHandler {
  return (req, _res, next) => {
    if (!req.auth?.scopes.includes(scope)) {
      throw new Forbidden('insufficient-scope', `This call needs a key with the \`${scope}\` scope.`, {
        realm: (ADMIN_SCOPES as readonly string[]).includes(scope) ? REALM.admin : REALM.remote,
        error: 'insufficient_scope',
        scope,
      });
    }
    next();
  };
}
