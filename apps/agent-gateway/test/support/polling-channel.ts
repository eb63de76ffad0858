import { ChannelCreated, ChannelsResponse, Worker } from '@pa/contracts';
import { expect } from 'vitest';
import type { FakeBot, FakeTelegram } from './fake-telegram.ts';
import { expectContract, postJson } from './http.ts';
import type { TestGateway } from './test-app.ts';

// A worker with a Telegram bot connected in polling mode through the gateway's API, and its pairing.

export interface PollingChannel {
  bot: FakeBot;
  workspaceId: string;
  workerId: string;
  channelId: string;
  pairingCode: string;
  headers: Record<string, string>;
}

export async function connectPollingBot(g: TestGateway, fake: FakeTelegram): Promise<PollingChannel> {
  const workspaceId = (await g.db.workspace.create({ data: { name: `ws-${Date.now()}` } })).id;
  const headers = { 'X-Workspace-Id': workspaceId };
  const created = await postJson(g.baseUrl, '/api/assistant/workers', { name: 'Property Manager' }, headers);
  expect(created.status, await created.clone().text()).toBe(201);
  const worker = expectContract(Worker, await created.json());
  const bot = fake.addBot();
  const connected = await postJson(
    g.baseUrl,
    `/api/assistant/workers/${worker.id}/channels`,
    { type: 'telegram', botToken: bot.token, mode: 'polling' },
    headers,
  );
  expect(connected.status, await connected.clone().text()).toBe(201);
  const channel = expectContract(ChannelCreated, await connected.json());
  return {
    bot,
    workspaceId,
    workerId: worker.id,
    channelId: channel.id,
    pairingCode: channel.pairingCode,
    headers,
  };
}

/** The chat sends `/start <code>` and gets "Connected to …". */
export async function pair(fake: FakeTelegram, c: PollingChannel, chatId: number): Promise<void> {
  await fake.userWrites(c.bot, { id: chatId }, `/start ${c.pairingCode}`);
  const [reply] = await fake.waitForMessages(chatId, 1);
  expect(reply!.text).toMatch(/Connected to/);
}

/** The worker's channels as GET …/channels lists them. */
export async function listChannels(g: TestGateway, c: PollingChannel) {
  const res = await fetch(`${g.baseUrl}/api/assistant/workers/${c.workerId}/channels`, {
    headers: c.headers,
  });
  expect(res.status).toBe(200);
  return expectContract(ChannelsResponse, await res.json()).channels;
}
