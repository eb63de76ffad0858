import { readFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createBindingRepository } from '../../apps/agent-gateway/src/features/binding/binding-repository.ts';
import { createWorkersRepository } from '../../apps/agent-gateway/src/features/workspace/workers-repository.ts';
import { createWorkersService } from '../../apps/agent-gateway/src/features/workers/workers-service.ts';
import { createWorkspacesRepository } from '../../apps/agent-gateway/src/features/workspace/workspaces-repository.ts';
import type { Db } from '../../apps/agent-gateway/src/lib/db.ts';
import type { DemoWorker } from '../provision-demo.ts';

// The demo's worker on the agent-platform side: a workspace and a "Property Manager" worker with the
// property-manager template, made before the gateway starts so that it starts with that worker as its default
// (WEB_WORKER_ID). Made here, on the gateway's database that `npm start` has open anyway for its migrations:
// through the gateway's CLI it took four process starts (2 minutes on a busy machine).
//
// The worker's id is kept in the data directory (demo-worker-id), so that later starts configure the same worker.
// A gateway that already has workers of its own is left alone. A demo left half-made by an interrupted start (the
// workspace made but not the worker, or the worker made but its id not yet kept) is found by its names and
// completed, not made twice.

export const DEMO_WORKSPACE_NAME = 'Demo workspace';
export const DEMO_WORKER_NAME = 'Property Manager';

export async function prepareDemoWorker(db: Db, dataDir: string): Promise<DemoWorker | null> {
  const file = path.join(dataDir, 'demo-worker-id');
  const remembered = await readFile(file, 'utf8').then(
    (s) => s.trim(),
    () => undefined,
  );
  const workspacesRepo = createWorkspacesRepository(db);
  const workersRepo = createWorkersRepository(db);
  const bindings = createBindingRepository(db);
  const workspaces = await workspacesRepo.list();
  const workers = (await Promise.all(workspaces.map((w) => workersRepo.list(w.id)))).flat();
  const demoWorkspaces = new Set(workspaces.filter((w) => w.name === DEMO_WORKSPACE_NAME).map((w) => w.id));
  const existing =
    workers.find((w) => w.id === remembered) ??
    workers.find((w) => w.name === DEMO_WORKER_NAME && demoWorkspaces.has(w.workspaceId));
  if (existing) {
    if (existing.id !== remembered) await keep(dataDir, file, existing.id);
    const bound = (await bindings.listInWorkspace(existing.workspaceId)).some(
      (b) => b.workerId === existing.id,
    );
    return { workerId: existing.id, workspaceId: existing.workspaceId, bound };
  }
  if (workers.length > 0) return null;

  const workspaceId = [...demoWorkspaces][0] ?? (await workspacesRepo.create(DEMO_WORKSPACE_NAME)).id;
  const worker = await createWorkersService({ workers: workersRepo }).create(workspaceId, {
    name: DEMO_WORKER_NAME,
    template: 'property-manager',
  });
  await keep(dataDir, file, worker.id);
  return { workerId: worker.id, workspaceId, bound: false };
}

async function keep(dataDir: string, file: string, id: string): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  await writeFile(file, `${id}\n`);
}
