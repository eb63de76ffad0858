import type { Db } from '../../lib/db.ts';

// The operator's CLI (`npm run gateway -- summary --worker <id>`) names workers by id across every workspace: it
// runs on the gateway's own machine with the database's credentials, so it is not a workspace's caller. This and
// default-worker.ts are the only places a worker is looked up without a workspace (see workers-repository.ts).
export function createOperatorWorkers(db: Db) {
  return {
    exists: async (id: string) =>
      (await db.worker.findUnique({ where: { id }, select: { id: true } })) !== null,
  };
}
