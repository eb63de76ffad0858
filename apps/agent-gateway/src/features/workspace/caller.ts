import type { DeviceScope } from '@pa/contracts';

// Who is calling (docs/access.md). The access middleware sets `req.caller` on every request before the routers run;
// services take the caller as an argument rather than reading the request.
//
// - `operator`: `GATEWAY_AUTH=none` (a loopback gateway), the operator's `GATEWAY_ADMIN_TOKEN`, or the CLI. It
//   may act in any workspace, as the gateway did before tokens.
// - `device`: a paired device's token (bearer or the `gw_session` cookie): its scopes, in its one workspace.
// - `anonymous`: no credentials, on a route whose access is `open`, `optional` or `signed`.
export type Caller =
  | { kind: 'operator' }
  | { kind: 'device'; deviceId: string; workspaceId: string; scopes: readonly DeviceScope[] }
  | { kind: 'anonymous' };

declare global {
  namespace Express {
    interface Request {
      caller?: Caller;
    }
  }
}

export const OPERATOR: Caller = { kind: 'operator' };

/** The workspace a caller is confined to, or null when it may act in any (the operator). */
export function callerWorkspace(caller: Caller | undefined): string | null {
  return caller?.kind === 'device' ? caller.workspaceId : null;
}

/** The caller the access middleware set; a route reached without it is a wiring mistake, never the operator. */
export function callerOf(req: { caller?: Caller | undefined }): Caller {
  if (!req.caller) throw new Error('The access middleware did not run for this request.');
  return req.caller;
}
