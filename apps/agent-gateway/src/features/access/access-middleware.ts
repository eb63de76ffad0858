import type { RouteAccess } from '@pa/contracts';
import { Forbidden, Unauthorized } from '@pa/http-kit';
import type { Request, RequestHandler } from 'express';
import type { Authenticator } from './authenticate.ts';
import { OPERATOR } from '../workspace/caller.ts';
import type { OpenResponses } from './open-responses.ts';
import { requestAccess } from './route-access.ts';

// The one access check of the gateway (docs/access.md), run before every router: it reads the route's rule from the
// route table (route-access.ts), sets `req.caller`, and refuses what the caller may not do. Routers and services
// then take the caller as it is.
//
// - `embed` routes (the embedded chat's API) are left to the embed router, which checks their key, origin and visitor.
// - GATEWAY_AUTH=none: everyone is the operator (a loopback gateway, as before tokens).
// - token: `open` and `signed` routes and everything outside /api and /v1 (the UI, /healthz, /openapi.json) need
//   nothing; `optional` takes a caller when one is presented; a scope needs a device holding it or the operator.
//   /api and /v1 paths of no route need a valid token before they are told 404.
// - Unsafe methods carrying a foreign `Origin` are refused when CORS_ORIGIN is `*` (no site may write through a
//   visitor's browser), and cookie-authenticated unsafe requests must carry an allowed `Origin` in any case.
// - A device's `X-Workspace-Id` must name its own workspace.

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const REALM = 'agent-gateway';

export interface AccessOptions {
  mode: 'none' | 'token';
  /** CORS_ORIGIN: origins allowed besides the gateway's own; `*` allows reads from anywhere, writes from none */
  corsOrigins: readonly string[];
  credentials: Authenticator;
  openResponses: OpenResponses;
}

export function accessMiddleware(opts: AccessOptions): RequestHandler {
  const listed = new Set(opts.corsOrigins.filter((o) => o !== '*'));
  // req.protocol and req.host follow X-Forwarded-Proto / X-Forwarded-Host from a proxy TRUST_PROXY trusts
  const ownOrigin = (req: Request) => `${req.protocol}://${req.host ?? ''}`;
  const originAllowed = (req: Request, origin: string) => origin === ownOrigin(req) || listed.has(origin);

  return async (req, res, next) => {
    const rule = requestAccess(req.method, req.path);
    const access: RouteAccess | 'any' =
      rule.kind === 'route' ? rule.access : rule.kind === 'unknown-api' ? 'any' : 'open';
    // The embedded chat's API (docs/embedding.md) is checked by the embed router: its origins are its embed key's,
    // and its callers are visitors of another site, never devices.
    if (access === 'embed') {
      req.caller = { kind: 'anonymous' };
      return next();
    }
    const unsafe = !SAFE_METHODS.has(req.method);
    const origin = req.get('origin');
    if (unsafe && origin !== undefined && !originAllowed(req, origin)) {
      throw new Forbidden('origin-not-allowed', `Requests that change things are not taken from ${origin}.`);
    }
    if (opts.mode === 'none') {
      req.caller = OPERATOR;
      return next();
    }

    if (access === 'open' || access === 'signed') {
      req.caller = { kind: 'anonymous' };
      return next();
    }

    const found = await opts.credentials(req);
    if (found.kind !== 'valid') {
      if (access === 'optional') {
        req.caller = { kind: 'anonymous' };
        return next();
      }
      throw new Unauthorized(
        'unauthorized',
        found.kind === 'none'
          ? 'This gateway needs a device token: pair this device, or send Authorization: Bearer <token>.'
          : 'The token is not valid (unknown, revoked or mistyped).',
        { realm: REALM, error: 'invalid_token' },
      );
    }
    const caller = found.caller;
    if (found.via === 'cookie' && unsafe && (origin === undefined || !originAllowed(req, origin))) {
      throw new Forbidden(
        'origin-not-allowed',
        'A request sent with the session cookie that changes things must come from this gateway’s own page.',
      );
    }
    if (caller.kind === 'device') {
      if (access !== 'any' && access !== 'optional' && !caller.scopes.includes(access)) {
        throw new Forbidden('insufficient-scope', `This device lacks the ${access} scope.`, {
          realm: REALM,
          error: 'insufficient_scope',
          scope: access,
        });
      }
      const named = req.get('x-workspace-id');
      if (named !== undefined && named.toLowerCase() !== caller.workspaceId) {
        throw new Forbidden('workspace-forbidden', 'This device belongs to another workspace.');
      }
      opts.openResponses.track(caller.deviceId, res);
    }
    req.caller = caller;
    next();
  };
}
