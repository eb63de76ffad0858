import { Channel, ChannelsResponse, PAIRING_ALPHABET, PairingCodeResponse } from '@pa/contracts';
import { until } from '@pa/http-kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChannelUpdatesRepository } from '../src/features/channels/channel-updates-repository.ts';
import {
  capturedLogger,
  channelWorker,
  connectTelegram,
  pairChat,
  startChannelGateway,
} from './support/channels.ts';
import { FakeTelegram } from './support/fake-telegram.ts';
import { expectContract, expectProblem } from './support/http.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';

let fake: FakeTelegram;
let g: TestGateway;
const logs = capturedLogger();
beforeAll(async () => {
  fake = await FakeTelegram.start();
  g = await startChannelGateway(fake, { logger: logs.logger });
});
afterAll(async () => {
  await g?.close();
  await fake?.close();
});

describe('POST /api/assistant/workers/{workerId}/channels (telegram)', () => {
  it('checks the token with getMe and answers 201 with the pairing code, its expiry and the deep link', async () => {
    const worker = await channelWorker(g);
    const bot = fake.addBot();
    const before = Date.now();
    const created = await connectTelegram(worker, bot, 'polling');
    expect(created).toMatchObject({
      workerId: worker.workerId,
      type: 'telegram',
      mode: 'polling',
      botUsername: bot.username,
      status: 'pending_pairing',
      chat: null,
      connectedAt: null,
      pairingLink: `https://t.me/${bot.username}?start=${created.pairingCode}`,
    });
    expect([...created.pairingCode].every((c) => PAIRING_ALPHABET.includes(c))).toBe(true);
    const ttl = Date.parse(created.pairingExpiresAt) - before;
    expect(ttl).toBeGreaterThan(9.9 * 60_000);
    expect(ttl).toBeLessThanOrEqual(10 * 60_000 + 5_000);
    expect(fake.callsOf('getMe').some((c) => c.token === bot.token)).toBe(true);
    // polling mode makes sure no webhook is left that would stop getUpdates
    expect(fake.callsOf('deleteWebhook').some((c) => c.token === bot.token)).toBe(true);

    const row = await g.db.channel.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.externalId).toBe(String(bot.id));
    // the token is stored encrypted only
    expect(Buffer.from(row.secretsCiphertext).toString('latin1')).not.toContain(bot.token);
    expect(Buffer.from(row.secretsCiphertext).toString('latin1')).not.toContain(bot.token.split(':')[1]);
    expect(row.pairingCodeHash).not.toBeNull();
  });

  it('in webhook mode sets the webhook to PUBLIC_BASE_URL with a random secret (only its hash stored) and message updates', async () => {
    const worker = await channelWorker(g);
    const bot = fake.addBot();
    const created = await connectTelegram(worker, bot, 'webhook');
    const call = fake.callsOf('setWebhook').find((c) => c.token === bot.token)!;
    expect(call.params).toMatchObject({
      url: `${g.config.PUBLIC_BASE_URL}/api/channels/telegram/${created.id}/webhook`,
      allowed_updates: ['message'],
    });
    const secret = String(call.params.secret_token);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{32,256}$/);
    const row = await g.db.channel.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.webhookSecretHash?.length).toBe(32);
    expect(Buffer.from(row.webhookSecretHash!).toString('latin1')).not.toContain(secret);
    expect(Buffer.from(row.secretsCiphertext).toString('latin1')).not.toContain(secret);
  });

  it('answers 422 channel-token-rejected when Telegram refuses the token, and stores nothing', async () => {
    const worker = await channelWorker(g);
    const res = await worker.call('POST', '/channels', {
      type: 'telegram',
      botToken: '123456789:AAunknownunknownunknownunknownunknown',
      mode: 'polling',
    });
    await expectProblem(res, 422, 'channel-token-rejected');
    expect(await g.db.channel.count({ where: { workerId: worker.workerId } })).toBe(0);
  });

  it('answers 502 channel-unreachable when the Bot API is down or failing', async () => {
    const worker = await channelWorker(g);
    const bot = fake.addBot();
    fake.down();
    try {
      await expectProblem(
        await worker.call('POST', '/channels', { type: 'telegram', botToken: bot.token, mode: 'polling' }),
        502,
        'channel-unreachable',
      );
    } finally {
      fake.up();
    }
    fake.failNext('getMe', 500, 'Internal Server Error');
    await expectProblem(
      await worker.call('POST', '/channels', { type: 'telegram', botToken: bot.token, mode: 'polling' }),
      502,
      'channel-unreachable',
    );
    expect(await g.db.channel.count({ where: { workerId: worker.workerId } })).toBe(0);
  });

  it('answers 409 channel-already-connected for a bot connected to another worker, which keeps it', async () => {
    const first = await channelWorker(g);
    const second = await channelWorker(g);
    const bot = fake.addBot();
    const created = await connectTelegram(first, bot, 'webhook');
    const webhookBefore = fake.webhookOf(bot);
    await expectProblem(
      await second.call('POST', '/channels', { type: 'telegram', botToken: bot.token, mode: 'webhook' }),
      409,
      'channel-already-connected',
    );
    // the other worker's webhook was not touched
    expect(fake.webhookOf(bot)).toEqual(webhookBefore);
    const row = await g.db.channel.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.workerId).toBe(first.workerId);
  });

  it('replaces the channel when the same worker connects the same bot again (say, to change its mode)', async () => {
    const worker = await channelWorker(g);
    const bot = fake.addBot();
    const first = await connectTelegram(worker, bot, 'webhook');
    const second = await connectTelegram(worker, bot, 'polling');
    expect(second.id).not.toBe(first.id);
    const list = expectContract(ChannelsResponse, await (await worker.call('GET', '/channels')).json());
    expect(list.channels.map((c) => [c.id, c.mode])).toEqual([[second.id, 'polling']]);
    expect(fake.webhookOf(bot)).toBeNull();
  });

  it('answers 422 public-url-required in webhook mode without PUBLIC_BASE_URL', async () => {
    const other = await startTestGateway({
      redis: 'none',
      databaseUrl: g.databaseUrl,
      env: { AI_WORKERS_ENABLED: 'true', TELEGRAM_API_BASE_URL: fake.baseUrl },
    });
    try {
      const worker = await channelWorker(other);
      const bot = fake.addBot();
      await expectProblem(
        await worker.call('POST', '/channels', { type: 'telegram', botToken: bot.token, mode: 'webhook' }),
        422,
        'public-url-required',
      );
      expect(fake.callsOf('getMe').some((c) => c.token === bot.token)).toBe(false);
    } finally {
      await other.close();
    }
  });

  it('is gated like the other worker routes: another workspace’s worker is 404, workers off is 404', async () => {
    const worker = await channelWorker(g);
    const stranger = await g.db.workspace.create({ data: { name: 'stranger' } });
    const res = await fetch(`${g.baseUrl}/api/assistant/workers/${worker.workerId}/channels`, {
      headers: { 'X-Workspace-Id': stranger.id },
    });
    await expectProblem(res, 404, 'worker-not-found');
    const off = await startTestGateway({
      redis: 'none',
      databaseUrl: g.databaseUrl,
      env: { TELEGRAM_API_BASE_URL: fake.baseUrl },
    });
    try {
      const r = await fetch(`${off.baseUrl}/api/assistant/workers/${worker.workerId}/channels`, {
        headers: { 'X-Workspace-Id': worker.workspaceId },
      });
      await expectProblem(r, 404, 'workers-disabled');
    } finally {
      await off.close();
    }
  });
});

describe('GET / DELETE /api/assistant/workers/{workerId}/channels', () => {
  it('lists the channels without a secret, and DELETE answers 204, deletes the webhook and keeps the sessions', async () => {
    const worker = await channelWorker(g);
    const bot = fake.addBot();
    const created = await connectTelegram(worker, bot, 'webhook');
    const listed = await worker.call('GET', '/channels');
    expect(listed.status).toBe(200);
    const body = await listed.text();
    expect(body).not.toContain(bot.token);
    expect(body).not.toContain(String(fake.webhookOf(bot)!.secretToken));
    expect(body).not.toContain(created.pairingCode);
    const { channels } = expectContract(ChannelsResponse, JSON.parse(body));
    expect(channels).toEqual([
      expectContract(Channel, {
        id: created.id,
        workerId: worker.workerId,
        type: 'telegram',
        mode: 'webhook',
        botUsername: bot.username,
        status: 'pending_pairing',
        chat: null,
        connectedAt: null,
        lastError: null,
        pairingExpiresAt: created.pairingExpiresAt,
      }),
    ]);

    await pairChat(fake, bot, 555_001, created.pairingCode);
    const paired = expectContract(ChannelsResponse, await (await worker.call('GET', '/channels')).json());
    expect(paired.channels[0]).toMatchObject({ status: 'connected', chat: { id: '555001' } });
    await fake.userWrites(bot, { id: 555_001 }, 'hello');
    await fake.waitForMessages(555_001, 2);

    const del = await worker.call('DELETE', `/channels/${created.id}`);
    expect(del.status).toBe(204);
    expect(fake.webhookOf(bot)).toBeNull();
    expect(fake.callsOf('deleteWebhook').some((c) => c.token === bot.token)).toBe(true);
    expect(await g.db.channel.count({ where: { id: created.id } })).toBe(0);
    await expectProblem(await worker.call('DELETE', `/channels/${created.id}`), 404, 'channel-not-found');
    // an update still in flight for the deleted channel is dropped, not an error
    expect(await createChannelUpdatesRepository(g.db).record(created.id, '42')).toBe(false);
    // the chat's session (the worker's memory of it) stays
    expect(
      await g.db.chatSession.count({ where: { channel: 'telegram', externalId: { endsWith: ':555001' } } }),
    ).toBe(1);
  });

  it('POST .../pairing-code issues a new code and the old one stops working', async () => {
    const worker = await channelWorker(g);
    const bot = fake.addBot();
    const created = await connectTelegram(worker, bot, 'webhook');
    const res = await worker.call('POST', `/channels/${created.id}/pairing-code`);
    expect(res.status).toBe(200);
    const fresh = expectContract(PairingCodeResponse, await res.json());
    expect(fresh.pairingCode).not.toBe(created.pairingCode);
    expect(fresh.pairingLink).toBe(`https://t.me/${bot.username}?start=${fresh.pairingCode}`);

    await fake.userWrites(bot, { id: 555_002 }, `/start ${created.pairingCode}`);
    const [refused] = await fake.waitForMessages(555_002, 1);
    expect(refused!.text).toBe('That code is not valid or has expired. Ask for a new one in the settings.');
    await pairChat(fake, bot, 555_002, fresh.pairingCode);
  });
});

describe('secrets', () => {
  it('never puts the bot token or the webhook secret in an answer or a log line', async () => {
    const worker = await channelWorker(g);
    const bot = fake.addBot();
    const created = await connectTelegram(worker, bot, 'webhook');
    const secret = String(fake.webhookOf(bot)!.secretToken);
    await pairChat(fake, bot, 555_003, created.pairingCode);
    // failures too: the Bot API down while replying, and while connecting
    fake.down();
    const failed = await worker.call('POST', '/channels', {
      type: 'telegram',
      botToken: bot.token,
      mode: 'webhook',
    });
    expect(await failed.text()).not.toContain(bot.token);
    const stillDown = fake.webhookOf(bot)!;
    fake.up();
    await fake.deliver(bot, {
      update_id: 99,
      message: { message_id: 1, date: 0, chat: { id: 555_003, type: 'private' }, text: '/help' },
    });
    expect(stillDown.secretToken).toBe(secret);
    await fake.waitForMessages(555_003, 2);
    await until('a log line of the failure', () => logs.text().includes('failed while connecting'));
    const all = logs.text();
    expect(all.length).toBeGreaterThan(0);
    expect(all).not.toContain(bot.token);
    expect(all).not.toContain(bot.token.split(':')[1]);
    expect(all).not.toContain(secret);
  });
});
