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
