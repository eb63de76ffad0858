import { WorkspaceIdHeader } from '@pa/contracts';
import { NotFound, ValidationFailed } from '@pa/http-kit';
import type { Request, RequestHandler } from 'express';
import { callerWorkspace } from './caller.ts';
import type { WorkspacesRepository } from './workspaces-repository.ts';

declare global {
  namespace Express {
    interface Request {
      workspaceId?: string;
    }
  }
}

/** The workspace an `X-Workspace-Id` header names: 400 unless a UUID, 404 unless it exists. */
export async function existingWorkspace(
  workspaces: WorkspacesRepository,
  header: string | undefined,
): Promise<string> {
  const parsed = WorkspaceIdHeader.safeParse(header);
  if (!parsed.success) {
    throw new ValidationFailed([
      { pointer: '#/x-workspace-id', detail: 'the X-Workspace-Id header must be a workspace UUID' },
    ]);
  }
  if (!(await workspaces.exists(parsed.data)))
    throw new NotFound('workspace-not-found', 'No such workspace.');
  return parsed.data;
}

/**
 * The workspace a request acts in: its `X-Workspace-Id`, else a device's own workspace (a device needs no header;
 * the access middleware has already refused a header naming another workspace: 403 `workspace-forbidden`).
 */
export function workspaceHeader(req: Request): string | undefined {
  return req.get('x-workspace-id') ?? callerWorkspace(req.caller) ?? undefined;
}

/** Requires `X-Workspace-Id` (or a device's own workspace) naming an existing workspace; every worker route is scoped by it. */
export function requireWorkspace(workspaces: WorkspacesRepository): RequestHandler {
  return async (req, _res, next) => {
    req.workspaceId = await existingWorkspace(workspaces, workspaceHeader(req));
    next();
  };
}
