import type { Db } from '../../lib/db.ts';
import { WORKER_WITH_BINDING } from './workers-repository.ts';

// The web chat's default worker: the one that answers when a request names none, and whose workspace is the web
// chat's workspace. It is chosen by configuration, never by a request: WEB_WORKER_ID (which `npm start`'s demo
// provisioning sets), else — for a gateway with a single workspace and nothing configured — the oldest worker.
//
// One of the two places a worker is looked up without a workspace (see workers-repository.ts; the other is the
// operator's CLI): the id comes from the operator's configuration, and a chat request can only reach the workers
// of the workspace it resolves to.
export function createDefaultWorker(deps: { db: Db; configuredId: string | undefined }) {
  const { db, configuredId } = deps;
  return {
    /** Null when there are no workers, or when WEB_WORKER_ID names one that no longer exists. */
    resolve: () =>
      configuredId
        ? db.worker.findUnique({ where: { id: configuredId }, include: WORKER_WITH_BINDING })
        : db.worker.findFirst({ orderBy: { createdAt: 'asc' }, include: WORKER_WITH_BINDING }),
  };
}
export type DefaultWorker = ReturnType<typeof createDefaultWorker>;
