import type { WorkersRepository } from './workers-repository.ts';

/** The workspace `npm start` provisions for the demo; its first worker is the demo worker. */
export const DEMO_WORKSPACE_NAME = 'Demo workspace';

// The worker the web chat talks to when a request names none: WEB_WORKER_ID, else the demo worker, else the
// oldest worker. Null when there are no workers.
export async function resolveDefaultWorker(workers: WorkersRepository, webWorkerId: string | undefined) {
  if (webWorkerId) {
    const configured = await workers.findAnywhere(webWorkerId);
    if (configured) return configured;
  }
  return (await workers.firstInWorkspaceNamed(DEMO_WORKSPACE_NAME)) ?? (await workers.oldest());
}
