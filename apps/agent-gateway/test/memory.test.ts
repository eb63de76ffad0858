import { ChatResponse } from '@pa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSessionRepository } from '../src/features/sessions/session-repository.ts';
import { expectContract, postJson } from './support/http.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';

let g: TestGateway;
beforeAll(async () => {
  g = await startTestGateway({ env: { CHAT_RATE_LIMIT_PER_MIN: '10000' }, redis: 'none' });
});
afterAll(async () => g?.close());

async function say(base: string, message: string, sessionId?: string) {
  const res = await postJson(base, '/api/chat', { message, ...(sessionId ? { sessionId } : {}) });
  return expectContract(ChatResponse, await res.json());
}

describe('sessions and episodic memory', () => {
  it('memory survives a new app instance on the same database', async () => {
    const first = await say(g.baseUrl, 'my name is Ada');
    const other = await startTestGateway({ databaseUrl: g.databaseUrl, redis: 'none' });
    try {
      expect((await say(other.baseUrl, 'what is my name?', first.sessionId)).reply).toBe(
        'Your name is **Ada**.',
      );
    } finally {
      await other.close();
    }
  });

  it('never lets one session’s memory leak into another', async () => {
    const a = await say(g.baseUrl, 'my name is Ada');
    const b = await say(g.baseUrl, 'my name is Brendan');
    expect(a.sessionId).not.toBe(b.sessionId);
    expect((await say(g.baseUrl, 'what is my name?', a.sessionId)).reply).toBe('Your name is **Ada**.');
    expect((await say(g.baseUrl, 'what is my name?', b.sessionId)).reply).toBe('Your name is **Brendan**.');
    expect((await say(g.baseUrl, 'what is my name?')).reply).toBe("You haven't told me your name yet.");
  });

  it('maps the same external id to separate sessions per channel', async () => {
    const sessions = createSessionRepository(g.db);
    const id = `shared-${Date.now()}`;
    await say(g.baseUrl, 'my name is Web', id);
    const cli = await sessions.begin({
      channel: 'cli',
      owner: '',
      externalId: id,
      message: 'hi',
      createdAt: new Date(),
    });
    expect(cli.context).toEqual([]);
    const web = await sessions.find({ channel: 'web', owner: '', externalId: id });
    expect(web?.id).toBeDefined();
    expect(web?.id).not.toBe(cli.session.id);
    expect((await sessions.history(web!.id, 10)).map((t) => t.role)).toEqual(['user', 'assistant']);
  });

  it('the context is the latest 20 turns, oldest first, without failed turns or the new one', async () => {
    const sessions = createSessionRepository(g.db);
    const externalId = `ctx-${Date.now()}`;
    const first = await sessions.begin({
      channel: 'web',
      owner: '',
      externalId,
      message: 'turn 0',
      createdAt: new Date(Date.now() - 100_000),
    });
    expect(first).toMatchObject({ stored: true, context: [] });
    const t0 = Date.now() - 100_000;
    for (let i = 1; i < 30; i++) {
      await sessions.addTurn(first.session.id, {
        role: i % 2 ? 'assistant' : 'user',
        content: `turn ${i}`,
        status: i === 27 ? 'error' : 'complete',
        createdAt: new Date(t0 + i * 1000),
      });
    }
    const next = await sessions.begin({
      channel: 'web',
      owner: '',
      externalId,
      message: 'turn 30',
      createdAt: new Date(),
    });
    expect(next.session.id).toBe(first.session.id);
    expect(next.context).toHaveLength(20);
    expect(next.context.map((t) => t.content)).toEqual(
      [...Array.from({ length: 30 }, (_, i) => i)]
        .filter((i) => i !== 27)
        .slice(-20)
        .map((i) => `turn ${i}`),
    );
    expect(next.context.map((t) => t.role)).toEqual(
      next.context.map((t) => (Number(t.content.slice(5)) % 2 ? 'assistant' : 'user')),
    );
  });

  it('sweeps sessions idle past the TTL, with their turns, and keeps the others', async () => {
    const sessions = createSessionRepository(g.db);
    const idle = await say(g.baseUrl, 'my name is Idle');
    const active = await say(g.baseUrl, 'my name is Active');
    await g.db.chatSession.update({
      where: { channel_owner_externalId: { channel: 'web', owner: '', externalId: idle.sessionId } },
      data: { lastActiveAt: new Date(Date.now() - 31 * 86_400_000) },
    });
    const deleted = await sessions.sweep(new Date(Date.now() - 30 * 86_400_000));
    expect(deleted).toBeGreaterThanOrEqual(1);
    expect(await sessions.find({ channel: 'web', owner: '', externalId: idle.sessionId })).toBeNull();
    expect(await sessions.find({ channel: 'web', owner: '', externalId: active.sessionId })).not.toBeNull();
    expect((await say(g.baseUrl, 'what is my name?', idle.sessionId)).reply).toBe(
      "You haven't told me your name yet.",
    );
  });
});
