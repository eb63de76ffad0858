import { WorkerMailbox } from '@pa/contracts';
import { expect } from 'vitest';
import type { TestImap } from './dovecot.ts';
import { expectContract, postJson } from './http.ts';
import type { TestGateway } from './test-app.ts';

// A worker's own mailbox on the test Dovecot, connected through the gateway's real API (docs/email.md).

type WorkerRef = { workspaceId: string; workerId: string };

/** The connect body for the Dovecot user (a plain connection on its loopback port), with any field replaced. */
export const mailboxBody = (imap: TestImap, over: Record<string, unknown> = {}) => ({
  address: imap.user,
  host: imap.host,
  port: imap.port,
  secure: false,
  username: imap.user,
  password: imap.password,
  ...over,
});

/** POST …/mailboxes as the worker's workspace; the answer as it came. */
export const addMailbox = (g: TestGateway, w: WorkerRef, body: unknown) =>
  postJson(g.baseUrl, `/api/assistant/workers/${w.workerId}/mailboxes`, body, {
    'X-Workspace-Id': w.workspaceId,
  });

/** Connects the Dovecot user's mailbox to the worker; its id. */
export async function connectMailbox(g: TestGateway, w: WorkerRef, imap: TestImap): Promise<string> {
  const res = await addMailbox(g, w, mailboxBody(imap));
  expect(res.status, await res.clone().text()).toBe(201);
  return expectContract(WorkerMailbox, await res.json()).id;
}
