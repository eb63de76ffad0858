import { Writable } from 'node:stream';
import { ChannelCreated, Worker } from '@pa/contracts';
import { createLogger } from '@pa/http-kit';
import { expect } from 'vitest';
import type { FakeBot, FakeTelegram } from './fake-telegram.ts';
import { expectContract } from './http.ts';
import { freePort } from '@pa/http-kit/testing';
import type { Logger } from 'pino';
import type { FakeOpenAI } from './fake-openai.ts';
import { type GatewayBackendName, startTestGateway, type TestGateway } from './test-app.ts';

// Channel tests' helpers: a workspace with a worker, its channel routes, and a Telegram chat paired with it, all
// through the gateway's real API.

export interface ChannelWorker {
  workspaceId: string;
  workerId: string;
  /** a call to /api/assistant/workers/<workerId><path> in the worker's workspace */
  call(method: string, path: string, body?: unknown): Promise<Response>;
}

export async function channelWorker(
  g: TestGateway,
  existing?: { workspaceId: string; workerId: string },
): Promise<ChannelWorker> {
  const workspaceId =
    existing?.workspaceId ?? (await g.db.workspace.create({ data: { name: `ws-${Date.now()}` } })).id;
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${g.baseUrl}/api/assistant/workers${path}`, {
      method,
      headers: {
        'X-Workspace-Id': workspaceId,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  let workerId = existing?.workerId;
  if (!workerId) {
    const res = await call('POST', '', { name: 'Property Manager', template: 'property-manager' });
    expect(res.status).toBe(201);
    workerId = expectContract(Worker, await res.json()).id;
  }
  const id = workerId;
  return { workspaceId, workerId: id, call: (method, path, body) => call(method, `/${id}${path}`, body) };
}

export async function connectTelegram(
  worker: ChannelWorker,
  bot: FakeBot,
  mode: 'polling' | 'webhook' = 'webhook',
): Promise<ChannelCreated> {
  const res = await worker.call('POST', '/channels', { type: 'telegram', botToken: bot.token, mode });
  expect(res.status, await res.clone().text()).toBe(201);
  return expectContract(ChannelCreated, await res.json());
}

/** A Telegram update carrying a private chat's text message, as Telegram posts it to a webhook. */
export const textUpdate = (updateId: number, chatId: number, text: string) => ({
  update_id: updateId,
  message: {
    message_id: updateId,
    date: Math.floor(Date.now() / 1000),
    chat: { id: chatId, type: 'private', first_name: 'Sam' },
    from: { id: chatId, is_bot: false, first_name: 'Sam' },
    text,
  },
});

/** A chat sends the pairing code and gets "Connected to …". */
export async function pairChat(
  fake: FakeTelegram,
  bot: FakeBot,
  chatId: number,
  code: string,
): Promise<void> {
  const before = fake.messagesTo(chatId).length;
  await fake.userWrites(bot, { id: chatId }, `/start ${code}`);
  const sent = await fake.waitForMessages(chatId, before + 1);
  expect(sent[before]!.text).toMatch(/^Connected to Property Manager/);
}

/** A logger that keeps every line, to look for secrets in. */
export function capturedLogger() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logger: createLogger('agent-gateway', 'debug', sink), text: () => lines.join('') };
}

/**
 * The gateway as the Telegram channel tests run it: workers on, the Bot API at `fake`, and on a port chosen first
 * so that PUBLIC_BASE_URL (webhook mode) is its own address. `env` adds to or overrides that.
 */
export async function startChannelGateway(
  fake: FakeTelegram,
  opts: { env?: Record<string, string>; logger?: Logger; backend?: GatewayBackendName } = {},
): Promise<TestGateway> {
  const port = await freePort();
  return startTestGateway({
    redis: 'none',
    backend: opts.backend,
    port,
    ...(opts.logger ? { logger: opts.logger } : {}),
    env: {
      AI_WORKERS_ENABLED: 'true',
      TELEGRAM_API_BASE_URL: fake.baseUrl,
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      ...opts.env,
    },
  });
}

/** The provider settings that make the gateway answer with the loopback OpenAI-compatible fake. */
export function fakeOpenAIEnv(llm: FakeOpenAI): Record<string, string> {
  return {
    OPENAI_BASE_URL: llm.url,
    OPENAI_API_KEY: 'sk-test',
    OPENAI_MODEL: 'gpt-test',
    PROVIDER: 'openai',
  };
}
