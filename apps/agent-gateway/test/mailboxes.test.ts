import { randomBytes } from 'node:crypto';
import net from 'node:net';
import os from 'node:os';
import { WorkerMailbox, WorkerMailboxesResponse } from '@pa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindWorker, type BoundWorker } from './support/bound-worker.ts';
import { startDovecot, type TestImap } from './support/dovecot.ts';
import { expectContract, expectProblem } from './support/http.ts';
import { addMailbox, mailboxBody as body } from './support/mailbox.ts';
import { type PlatformForGateway, startPlatformForGateway } from './support/platform.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';
import { scaled, startSilentServer } from '@pa/http-kit/testing';

// The assistant's own mailboxes (docs/email.md) against the real bridge (its /mailboxes) and a real IMAP server
// (Dovecot, started for this file): the one-mailbox rule before anything is saved, the login tried, the password
// kept encrypted and never returned.

const secretKey = randomBytes(32);
let platform: PlatformForGateway;
let imap: TestImap;
let g: TestGateway;
let tenant: Awaited<ReturnType<PlatformForGateway['createTenant']>>;
let worker: BoundWorker;

beforeAll(async () => {
  [platform, imap] = await Promise.all([startPlatformForGateway(), startDovecot()]);
  g = await startTestGateway({
    secretKey,
    redis: 'none',
    env: {
      AI_WORKERS_ENABLED: 'true',
      PLATFORM_BRIDGE_ENABLED: 'true',
      EMAIL_INGESTION_ENABLED: 'true',
      PLATFORM_BASE_URL: platform.baseUrl,
      SETUP_FAILURES_PER_10_MIN: '1000',
      SETUP_FAILURES_PER_WORKSPACE_10_MIN: '1000',
      IMAP_TIMEOUT_MS: '3000',
      // the test's Dovecot on loopback stands for a mail server on the operator's own network
      IMAP_INTERNAL_HOSTS: '127.0.0.1',
    },
  });
  tenant = await platform.createTenant();
  await platform.admin.addMailbox(tenant.slug, 'Lettings@Agency.test');
  worker = await bindWorker(g, tenant);
}, scaled(60_000));
afterAll(async () => {
  await g?.close();
  await imap?.close();
  await platform?.close();
});

const mailboxBody = (over: Record<string, unknown> = {}) => body(imap, over);
const list = async (w: { workspaceId: string; workerId: string }) => {
  const res = await fetch(`${g.baseUrl}/api/assistant/workers/${w.workerId}/mailboxes`, {
    headers: { 'X-Workspace-Id': w.workspaceId },
  });
  expect(res.status).toBe(200);
  return expectContract(WorkerMailboxesResponse, await res.json()).mailboxes;
};

describe('connecting a mailbox', () => {
  it('refuses an address the platform polls, whatever its case or +tag, and saves nothing', async () => {
    for (const address of ['lettings@agency.test', 'LETTINGS@AGENCY.TEST', 'lettings+leads@Agency.test']) {
      const res = await addMailbox(g, worker, mailboxBody({ address }));
      const problem = await expectProblem(res, 409, 'mailbox-owned-by-platform');
      expect(problem.detail).toMatch(
        /^Your property platform already reads lettings@agency\.test, so Porter reads/i,
      );
    }
    expect(await g.db.mailbox.count()).toBe(0);
  });

  it('refuses a login the IMAP server rejects, or a server that is not there (422), and saves nothing', async () => {
    const wrong = await expectProblem(
      await addMailbox(g, worker, mailboxBody({ password: 'not-the-password' })),
      422,
      'mailbox-login-failed',
    );
    expect(wrong.detail).toContain('the server refused the username or password');
    const nowhere = await expectProblem(
      await addMailbox(g, worker, mailboxBody({ port: 9 })),
      422,
      'mailbox-login-failed',
    );
    expect(nowhere.detail).toBe(
      'Could not log in to 127.0.0.1:9: no IMAP server answered at that server and port.',
    );
    expect(await g.db.mailbox.count()).toBe(0);
  });

  // Issue 33, defect 1: the answer told an open port ("did not answer in time") from a closed one ("nothing
  // answers"), a port scanner for anyone with workers:write.
  it('answers a closed port, a silent one and one that is not IMAP in the same words', async () => {
    const silent = await startSilentServer();
    const chatty = net.createServer((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n'));
    await new Promise<void>((resolve) => chatty.listen(0, '127.0.0.1', resolve));
    try {
      const detail = async (port: number) =>
        (await expectProblem(await addMailbox(g, worker, mailboxBody({ port })), 422, 'mailbox-login-failed'))
          .detail;
      const closed = await detail(9);
      expect(await detail(silent.port)).toBe(closed.replace(':9:', `:${silent.port}:`));
      const sshPort = (chatty.address() as net.AddressInfo).port;
      expect(await detail(sshPort)).toBe(closed.replace(':9:', `:${sshPort}:`));
      expect(silent.accepted()).toBe(1);
    } finally {
      await silent.close();
      await new Promise<void>((resolve) => chatty.close(() => resolve()));
    }
  });

  it('connects one that logs in: listed without its password, which is stored encrypted', async () => {
    const res = await addMailbox(g, worker, mailboxBody());
    expect(res.status, await res.clone().text()).toBe(201);
    const text = await res.clone().text();
    expect(text).not.toContain(imap.password);
    const mailbox = expectContract(WorkerMailbox, await res.json());
    expect(mailbox).toMatchObject({
      workerId: worker.workerId,
      address: imap.user,
      status: 'active',
      messagesStored: 0,
      lastSyncAt: null,
      lastError: null,
    });
    expect((await list(worker)).map((m) => m.id)).toEqual([mailbox.id]);
    const row = await g.db.mailbox.findUniqueOrThrow({ where: { id: mailbox.id } });
    expect(Buffer.from(row.passwordCiphertext).toString('latin1')).not.toContain(imap.password);

    // the same address again, on this worker or any other
    await expectProblem(await addMailbox(g, worker, mailboxBody()), 409, 'mailbox-already-connected');
    const other = await bindWorker(g, tenant);
    await expectProblem(
      await addMailbox(g, other, mailboxBody({ address: imap.user.toUpperCase() })),
      409,
      'mailbox-already-connected',
    );

    // another workspace does not reach the worker
    await expectProblem(
      await addMailbox(g, { ...other, workerId: worker.workerId }, mailboxBody()),
      404,
      'worker-not-found',
    );

    const del = await fetch(`${g.baseUrl}/api/assistant/workers/${worker.workerId}/mailboxes/${mailbox.id}`, {
      method: 'DELETE',
      headers: { 'X-Workspace-Id': worker.workspaceId },
    });
    expect(del.status).toBe(204);
    expect(await list(worker)).toEqual([]);
    const again = await fetch(
      `${g.baseUrl}/api/assistant/workers/${worker.workerId}/mailboxes/${mailbox.id}`,
      {
        method: 'DELETE',
        headers: { 'X-Workspace-Id': worker.workspaceId },
      },
    );
    await expectProblem(again, 404, 'mailbox-not-found');
  });

  it('refuses a worker not bound to the platform (422) and bad input (400)', async () => {
    const workspace = await g.db.workspace.create({ data: { name: 'unbound' } });
    const unbound = await g.db.worker.create({
      data: { workspaceId: workspace.id, name: 'Unbound', skillPacks: [] },
    });
    await expectProblem(
      await addMailbox(g, { workspaceId: workspace.id, workerId: unbound.id }, mailboxBody()),
      422,
      'worker-not-bound',
    );
    await expectProblem(
      await addMailbox(g, worker, mailboxBody({ address: 'not an address' })),
      400,
      'validation-failed',
    );
    await expectProblem(
      await addMailbox(g, worker, mailboxBody({ host: 'bad host!' })),
      400,
      'validation-failed',
    );
    await expectProblem(
      await addMailbox(g, worker, { ...mailboxBody(), extra: 1 }),
      400,
      'validation-failed',
    );
  });

  it('with the platform unreachable: 502, nothing saved', async () => {
    const cut = await startTestGateway({
      databaseUrl: g.databaseUrl,
      secretKey,
      redis: 'none',
      env: {
        AI_WORKERS_ENABLED: 'true',
        PLATFORM_BRIDGE_ENABLED: 'true',
        EMAIL_INGESTION_ENABLED: 'true',
        PLATFORM_BASE_URL: 'http://127.0.0.1:9',
      },
    });
    try {
      const before = await g.db.mailbox.count();
      await expectProblem(await addMailbox(cut, worker, mailboxBody()), 502, 'platform-unreachable');
      expect(await g.db.mailbox.count()).toBe(before);
    } finally {
      await cut.close();
    }
  });

  // Issue 33, defect 1: every loopback form made the gateway connect and send CAPABILITY and LOGIN to whatever
  // listened there. Without IMAP_INTERNAL_HOSTS (the default), none is connected to.
  it('refuses loopback, private, link-local and metadata hosts in every form (422) and connects to none', async () => {
    const strict = await startTestGateway({
      databaseUrl: g.databaseUrl,
      secretKey,
      redis: 'none',
      env: {
        AI_WORKERS_ENABLED: 'true',
        PLATFORM_BRIDGE_ENABLED: 'true',
        EMAIL_INGESTION_ENABLED: 'true',
        PLATFORM_BASE_URL: platform.baseUrl,
        SETUP_FAILURES_PER_10_MIN: '1000',
        SETUP_FAILURES_PER_WORKSPACE_10_MIN: '1000',
        IMAP_TIMEOUT_MS: '3000',
      },
    });
    const listener = await startSilentServer();
    try {
      const hosts = [
        '127.0.0.1',
        'localhost',
        '2130706433',
        '127.1',
        '0.0.0.0',
        os.hostname(),
        '10.0.0.1',
        '192.168.1.20',
        '172.16.5.4',
        '100.64.0.1',
        '169.254.169.254',
      ];
      for (const host of hosts) {
        const problem = await expectProblem(
          await addMailbox(strict, worker, mailboxBody({ host, port: listener.port })),
          422,
          'mailbox-host-refused',
        );
        expect(problem.detail, host).toMatch(/connects only to public mail servers/);
        // the address it resolved to is not told
        if (host !== '127.0.0.1') expect(problem.detail).not.toContain('127.0.0.1');
      }
      expect(listener.accepted()).toBe(0);
      expect(await g.db.mailbox.count()).toBe(0);
    } finally {
      await listener.close();
      await strict.close();
    }
  });

  it('is not there with EMAIL_INGESTION_ENABLED off (404)', async () => {
    const off = await startTestGateway({
      databaseUrl: g.databaseUrl,
      secretKey,
      redis: 'none',
      env: {
        AI_WORKERS_ENABLED: 'true',
        PLATFORM_BRIDGE_ENABLED: 'true',
        PLATFORM_BASE_URL: platform.baseUrl,
      },
    });
    try {
      await expectProblem(await addMailbox(off, worker, mailboxBody()), 404, 'email-ingestion-disabled');
    } finally {
      await off.close();
    }
  });
});
