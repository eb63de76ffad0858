import type { Request } from 'express';
import { callerOf, callerWorkspace } from '../workspace/caller.ts';
import { OPERATOR_OWNER } from './session-repository.ts';

/**
 * The owner of the sessions a request may name (docs/access.md): a paired device's workspace, so that its session ids
 * mean nothing to a device of another workspace, or OPERATOR_OWNER for the operator (and GATEWAY_AUTH=none).
 */
export function sessionOwner(req: Request): string {
  return callerWorkspace(callerOf(req)) ?? OPERATOR_OWNER;
}

/** The paired device making the request, which is recorded on the sessions it starts; null for the operator. */
export function sessionDevice(req: Request): string | null {
  const caller = callerOf(req);
  return caller.kind === 'device' ? caller.deviceId : null;
}

/**
 * Whose conversations a history list shows and which a caller may rename or delete: a paired device's own (within
 * its workspace), or, for the operator, every web conversation of no workspace.
 */
export interface SessionScope {
  owner: string;
  /** null: the operator, who sees every conversation of its owner */
  deviceId: string | null;
}

export function sessionScope(req: Request): SessionScope {
  return { owner: sessionOwner(req), deviceId: sessionDevice(req) };
}
