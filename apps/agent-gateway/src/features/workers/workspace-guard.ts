import { WorkspaceIdHeader } from '@pa/contracts';
import { NotFound, ValidationFailed } from '@pa/http-kit';
import type { RequestHandler } from 'express';
import type { WorkspacesRepository } from './workspaces-repository.ts';

declare global {
  namespace Express {
    interface Request {
      workspaceId?: string;
    }
  }
}

/** Requires `X-Workspace-Id` naming an existing workspace; every worker route is scoped by it. */
export function requireWorkspace(workspaces: WorkspacesRepository): RequestHandler {
  return async (req, _res, next) => {
    const parsed = WorkspaceIdHeader.safeParse(req.get('x-workspace-id'));
    if (!parsed.success) {
      throw ValidationFailed([
        { pointer: '#/x-workspace-id', detail: 'the X-Workspace-Id header must be a workspace UUID' },
      ]);
    }
    if (!(await workspaces.exists(parsed.data))) throw NotFound('workspace-not-found', 'No such workspace.');
    req.workspaceId = parsed.data;
    next();
  };
}
