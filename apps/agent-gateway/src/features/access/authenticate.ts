import type { DeviceScope } from '@pa/contracts';
import { hashesEqual, secretsEqual } from '@pa/http-kit';
import type { Request } from 'express';
import type { AccessRepository, TokenDevice } from './access-repository.ts';
import type { Caller } from './caller.ts';
import { parseDeviceToken } from './device-token.ts';
import { sessionCookie } from './session-cookie.ts';

// Who a request's credentials say it is: the operator (GATEWAY_ADMIN_TOKEN as a bearer), a device (its token as
// a bearer or in the gw_session cookie), or nobody. A device row is read at most every 5 s per instance while
// revocations reach the instance at once (the Redis revocation bus drops the cached row), and on every request
// otherwise, so a revocation holds from the next request on, on every instance.

export type Credentials =
  | { kind: 'none' }
  | { kind: 'invalid' }
  | { kind: 'valid'; caller: Exclude<Caller, { kind: 'anonymous' }>; via: 'bearer' | 'cookie' };

// last_used_at is written at most once a minute per device: the chat's hot path stays read-only.
const TOUCH_THROTTLE_MS = 60_000;
// A device found valid is remembered this long, and only while revocations reach this instance (the revocation
// bus: a revoked device is dropped at once); otherwise every request reads the row.
const CACHE_TTL_MS = 5_000;
const CACHE_MAX = 10_000;

interface Cached {
  device: TokenDevice;
  until: number;
}

export function createAuthenticator(deps: {
  access: AccessRepository;
  adminToken: string | undefined;
  onTouchError: (err: unknown) => void;
  /** true while revocations reach this instance at once: only then is the cache used */
  cacheable: () => boolean;
}) {
  const { access, adminToken } = deps;
  // keyed by the lookup prefix; the stored hash is still compared with the presented token's on every request
  const cache = new Map<string, Cached>();

  async function lookup(lookupPrefix: string): Promise<TokenDevice | null> {
    const useCache = deps.cacheable();
    const now = Date.now();
    if (useCache) {
      const hit = cache.get(lookupPrefix);
      if (hit && hit.until > now) return hit.device;
    }
    const row = await access.deviceByTokenPrefix(lookupPrefix);
    if (useCache && row && !row.revoked) {
      if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
      cache.set(lookupPrefix, { device: row, until: now + CACHE_TTL_MS });
    }
    return row;
  }

  async function device(token: string, via: 'bearer' | 'cookie'): Promise<Credentials> {
    const parsed = parseDeviceToken(token);
    if (!parsed.ok) return { kind: 'invalid' };
    const row = await lookup(parsed.lookupPrefix);
    if (!row || !hashesEqual(row.tokenHash, parsed.hash) || row.revoked) return { kind: 'invalid' };
    const now = new Date();
    if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > TOUCH_THROTTLE_MS) {
      // marked in the cached copy too, so that a cached device is not touched again on every request
      row.lastUsedAt = now;
      access.touchDevice(row.id, now, TOUCH_THROTTLE_MS).catch(deps.onTouchError);
    }
    return {
      kind: 'valid',
      via,
      caller: {
        kind: 'device',
        deviceId: row.id,
        workspaceId: row.workspaceId,
        scopes: row.scopes as DeviceScope[],
      },
    };
  }

  async function credentials(req: Request): Promise<Credentials> {
    const authorization = req.headers.authorization;
    if (authorization !== undefined) {
      const m = /^Bearer +(\S+) *$/i.exec(authorization);
      if (!m) return { kind: 'invalid' };
      const token = m[1]!;
      if (adminToken !== undefined && secretsEqual(token, adminToken)) {
        return { kind: 'valid', via: 'bearer', caller: { kind: 'operator' } };
      }
      return device(token, 'bearer');
    }
    const cookie = sessionCookie(req);
    return cookie === undefined ? { kind: 'none' } : device(cookie, 'cookie');
  }

  return {
    credentials,
    /** forgets a revoked device at once */
    forgetDevice(deviceId: string): void {
      for (const [key, entry] of cache) if (entry.device.id === deviceId) cache.delete(key);
    },
    forgetAll(): void {
      cache.clear();
    },
  };
}
export type Authenticator = ReturnType<typeof createAuthenticator>['credentials'];
