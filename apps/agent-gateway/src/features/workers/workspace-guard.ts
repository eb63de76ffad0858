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

/** Requires `X-Workspace-Id` naming an existing workspace; every worker route is scoped by it. */
export function requireWorkspace(workspaces: WorkspacesRepository): RequestHandler {
  return async (req, _res, next) => {
    req.workspaceId = await existingWorkspace(workspaces, req.get('x-workspace-id'));
    next();
  };
}
