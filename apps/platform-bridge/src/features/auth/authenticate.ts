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

function keyInQuery(query: Record<string, unknown>): boolean {
  return Object.entries(query).some(
    ([name, value]) =>
      QUERY_KEY_NAMES.has(name.toLowerCase()) || (typeof value === 'string' && /^(plat|padm)_/.test(value)),
  );
}

export function createAuthenticator(deps: { keys: ApiKeyRepository; clock: Clock; logger: Logger }) {
  const { keys, clock, logger } = deps;

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
    const now = clock.now();
    if (row.last_used_ms === null || now.getTime() - row.last_used_ms > LAST_USED_RESOLUTION_MS) {
      // Kept to the minute so that a busy key does not write on every request; failures only cost accuracy.
      keys
        .touch(row.tenant_id, row.id, now)
        .catch((err: unknown) => logger.warn({ err }, 'could not record key use'));
    }
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
     * Authenticates an admin (padm_) key of the review queue and checks that the tenant has the review-queue
     * flag. A remote key here is as invalid as an admin key on the bridge: each API takes its own kind only.
     */
    admin(): RequestHandler {
      return async (req, _res, next) => {
        const auth = await authenticate(
          req.get('authorization'),
          req.query as Record<string, unknown>,
          'admin',
        );
        req.auth = auth;
        if (!auth.flags.has('assistant_bridge_review_queue')) {
          throw new NotFound('review-queue-not-enabled', 'The review queue is not enabled for this tenant.');
        }
        next();
      };
    },
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
