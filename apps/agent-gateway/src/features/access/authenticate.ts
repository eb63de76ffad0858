import type { DeviceScope } from '@pa/contracts';
import { hashesEqual, sha256 } from '@pa/http-kit';
import type { Request } from 'express';
import type { AccessRepository, TokenDevice } from './access-repository.ts';
import type { Caller } from '../workspace/caller.ts';
import { parseDeviceToken } from './device-token.ts';
import { sessionCookie } from './session-cookie.ts';

// Who a request's credentials say it is: the operator (GATEWAY_ADMIN_TOKEN as a bearer), a device (its token as
// a bearer or in the gw_session cookie), or nobody. A presented token is hashed once (SHA-256) and that digest is
// compared in constant time with the admin token's and the device row's. A device row is read at most every 5 s
// per instance while revocations reach the instance at once (the Redis revocation bus drops the cached row), and on
// every request otherwise, so a revocation holds from the next request on, on every instance.

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
  credentials: Credentials & { kind: 'valid' };
  until: number;
}

export function createAuthenticator(deps: {
  access: AccessRepository;
  adminToken: string | undefined;
  onTouchError: (err: unknown) => void;
  /** true while revocations reach this instance at once: only then is the cache used */
  cacheable: () => boolean;
}) {
  const { access } = deps;
  // the admin token's digest, once: a presented token is hashed once and compared with it in constant time
  const adminHash = deps.adminToken === undefined ? undefined : sha256(deps.adminToken);
  // Devices found valid, keyed by the SHA-256 of their token (never the token itself) for each transport: a hit
  // costs one hash and a lookup, with no parsing and no new objects on the chat's hot path. The key is the digest
  // the row stores, so a hit is exactly a match of the stored hash.
  const cache = new Map<string, Cached>();

  function touch(row: TokenDevice): void {
    const now = Date.now();
    if (!row.lastUsedAt || now - row.lastUsedAt.getTime() > TOUCH_THROTTLE_MS) {
      // marked in the cached copy too, so that a cached device is not touched again on every request
      row.lastUsedAt = new Date(now);
      access.touchDevice(row.id, row.lastUsedAt, TOUCH_THROTTLE_MS).catch(deps.onTouchError);
    }
  }

  async function device(token: string, hash: Buffer, via: 'bearer' | 'cookie'): Promise<Credentials> {
    const useCache = deps.cacheable();
    const key = useCache ? `${via}:${hash.toString('base64')}` : '';
    if (useCache) {
      const hit = cache.get(key);
      if (hit && hit.until > Date.now()) {
        touch(hit.device);
        return hit.credentials;
      }
    }
    const parsed = parseDeviceToken(token);
    if (!parsed.ok) return { kind: 'invalid' };
    const row = await access.deviceByTokenPrefix(parsed.lookupPrefix);
    if (!row || !hashesEqual(row.tokenHash, hash) || row.revoked) return { kind: 'invalid' };
    touch(row);
    const credentials = {
      kind: 'valid' as const,
      via,
      caller: {
        kind: 'device' as const,
        deviceId: row.id,
        workspaceId: row.workspaceId,
        scopes: row.scopes as DeviceScope[],
      },
    };
    if (useCache) {
      if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
      cache.set(key, { device: row, credentials, until: Date.now() + CACHE_TTL_MS });
    }
    return credentials;
  }

  async function credentials(req: Request): Promise<Credentials> {
    const authorization = req.headers.authorization;
    if (authorization !== undefined) {
      const m = /^Bearer +(\S+) *$/i.exec(authorization);
      if (!m) return { kind: 'invalid' };
      const token = m[1]!;
      const hash = sha256(token);
      if (adminHash !== undefined && hashesEqual(hash, adminHash)) {
        return { kind: 'valid', via: 'bearer', caller: { kind: 'operator' } };
      }
      return device(token, hash, 'bearer');
    }
    const cookie = sessionCookie(req);
    return cookie === undefined ? { kind: 'none' } : device(cookie, sha256(cookie), 'cookie');
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
