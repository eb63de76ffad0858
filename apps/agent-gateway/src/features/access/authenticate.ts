import type { DeviceScope } from '@pa/contracts';
import { hashesEqual, secretsEqual } from '@pa/http-kit';
import type { Request } from 'express';
import type { AccessRepository } from './access-repository.ts';
import type { Caller } from './caller.ts';
import { parseDeviceToken } from './device-token.ts';
import { sessionCookie } from './session-cookie.ts';

// Who a request's credentials say it is: the operator (GATEWAY_ADMIN_TOKEN as a bearer), a device (its token as
// a bearer or in the gw_session cookie), or nobody. The device row is read on every request, so a revocation
// holds from the next request on, on every instance.

export type Credentials =
  | { kind: 'none' }
  | { kind: 'invalid' }
  | { kind: 'valid'; caller: Exclude<Caller, { kind: 'anonymous' }>; via: 'bearer' | 'cookie' };

// last_used_at is written at most once a minute per device: the chat's hot path stays read-only.
const TOUCH_THROTTLE_MS = 60_000;

export function createAuthenticator(deps: {
  access: AccessRepository;
  adminToken: string | undefined;
  onTouchError: (err: unknown) => void;
}) {
  const { access, adminToken } = deps;

  async function device(token: string, via: 'bearer' | 'cookie'): Promise<Credentials> {
    const parsed = parseDeviceToken(token);
    if (!parsed.ok) return { kind: 'invalid' };
    const row = await access.deviceByTokenPrefix(parsed.lookupPrefix);
    if (!row || !hashesEqual(row.tokenHash, parsed.hash) || row.revokedAt) return { kind: 'invalid' };
    const now = new Date();
    if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > TOUCH_THROTTLE_MS) {
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

  return async function credentials(req: Request): Promise<Credentials> {
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
  };
}
export type Authenticator = ReturnType<typeof createAuthenticator>;
