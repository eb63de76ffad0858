import { startTestGateway, type TestGateway } from './test-app.ts';

/**
 * A gateway whose web chat answers as a new worker of a new workspace, as the Settings tab's browser tests need it:
 * a first gateway makes the database, the workspace and the worker through the API, and the one under test is
 * started on that database knowing the worker (WEB_WORKER_ID). `setup` owns the database, so it closes last.
 */
export interface WebWorkerGateway {
  /** the gateway under test */
  gateway: TestGateway;
  /** owns the database */
  setup: TestGateway;
  workspaceId: string;
  workerId: string;
  close(): Promise<void>;
}

export async function startWebWorkerGateway(env: Record<string, string>): Promise<WebWorkerGateway> {
  const setup = await startTestGateway({ redis: 'none', env });
  try {
    const workspaceId = (await setup.db.workspace.create({ data: { name: 'Lettings team' } })).id;
    const created = await fetch(`${setup.baseUrl}/api/assistant/workers`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Workspace-Id': workspaceId },
      body: JSON.stringify({ name: 'Property Manager', template: 'property-manager' }),
    });
    if (created.status !== 201) throw new Error(`creating the worker answered ${created.status}`);
    const workerId = ((await created.json()) as { id: string }).id;
    const gateway = await startTestGateway({
      redis: 'none',
      databaseUrl: setup.databaseUrl,
      env: { ...env, WEB_WORKER_ID: workerId },
    });
    return {
      gateway,
      setup,
      workspaceId,
      workerId,
      async close() {
        await gateway.close();
        await setup.close();
      },
    };
  } catch (err) {
    await setup.close();
    throw err;
  }
}
