import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, newWorkspace, pairDevice, TOKEN_ENV } from './support/access.ts';
import { expectProblem } from './support/http.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';

// Revoking a device closes its open event streams at once: on the instance that revoked it, and on the others
// (which check the devices of their open responses every second).

let a: TestGateway;
let b: TestGateway;
let ws: string;

beforeAll(async () => {
  // the local provider waits 2 s before each piece of its reply: a stream stays open for many seconds
  const env = { ...TOKEN_ENV, LOCAL_PROVIDER_DELAY_MS: '2000' };
  // instances of one gateway share the database and REDIS_PREFIX (their revocation channel, their rate limits)
  const redisPrefix = `test:revocation:${process.pid}:${Date.now()}:`;
  a = await startTestGateway({ env, redis: 'required', redisPrefix });
  b = await startTestGateway({ env, redis: 'required', databaseUrl: a.databaseUrl, redisPrefix });
  ws = await newWorkspace(a, 'revocation');
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

/** Opens /api/chat/stream and returns once its first event has arrived. */
async function openStream(base: string, token: string) {
  const res = await fetch(
    `${base}/api/chat/stream?${new URLSearchParams({ message: 'hello there', sessionId: `rev-${Date.now()}` })}`,
    {
      headers: { authorization: `Bearer ${token}` },
    },
  );
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes('\n\n')) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended at once: ${text}`);
    text += decoder.decode(value);
  }
  /** Reads until the stream ends; says how it ended and when. */
  async function ended(): Promise<{ text: string; at: number; error: boolean }> {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return { text, at: Date.now(), error: false };
        text += decoder.decode(value);
      }
    } catch {
      return { text, at: Date.now(), error: true };
    }
  }
  return { ended: ended() };
}

describe('revoking a device', () => {
  it('refuses its next request on every instance, though they had it cached', async () => {
    const phone = await pairDevice(a, ws, ['chat']);
    // the third instance has no Redis: no cache, and the row is read on every request
    const c = await startTestGateway({ env: { ...TOKEN_ENV }, redis: 'none', databaseUrl: a.databaseUrl });
    try {
      for (const gw of [a, b, c]) {
        expect((await fetch(`${gw.baseUrl}/api/providers`, { headers: phone.bearer })).status).toBe(200);
      }
      expect(
        (
          await fetch(`${b.baseUrl}/api/devices/${phone.deviceId}`, {
            method: 'DELETE',
            headers: adminHeaders,
          })
        ).status,
      ).toBe(204);
      await expectProblem(
        await fetch(`${b.baseUrl}/api/providers`, { headers: phone.bearer }),
        401,
        'unauthorized',
      );
      await expectProblem(
        await fetch(`${c.baseUrl}/api/providers`, { headers: phone.bearer }),
        401,
        'unauthorized',
      );
      // a's cache is told over Redis pub/sub: a matter of milliseconds after the DELETE returned
      await expect
        .poll(async () => (await fetch(`${a.baseUrl}/api/providers`, { headers: phone.bearer })).status, {
          timeout: 1000,
          interval: 20,
        })
        .toBe(401);
    } finally {
      await c.close();
    }
  });

  it('closes its open /api/chat/stream on the same instance at once', async () => {
    const phone = await pairDevice(a, ws, ['chat']);
    const other = await pairDevice(a, ws, ['chat']);
    const stream = await openStream(a.baseUrl, phone.token);
    const bystander = await openStream(a.baseUrl, other.token);
    const revokedAt = Date.now();
    expect(
      (await fetch(`${a.baseUrl}/api/devices/${phone.deviceId}`, { method: 'DELETE', headers: adminHeaders }))
        .status,
    ).toBe(204);
    const end = await stream.ended;
    expect(end.at - revokedAt).toBeLessThan(1500);
    expect(end.text).not.toContain('[DONE]');
    await expectProblem(
      await fetch(`${a.baseUrl}/api/providers`, { headers: phone.bearer }),
      401,
      'unauthorized',
    );
    // another device's stream stays open (its next piece is 2 s away: it must not end before then)
    const state = await Promise.race([
      bystander.ended.then(() => 'ended'),
      new Promise((resolve) => setTimeout(() => resolve('open'), 2500)),
    ]);
    expect(state).toBe('open');
  });

  it('closes its open stream on another instance within the poll (about a second)', async () => {
    const phone = await pairDevice(a, ws, ['chat']);
    const stream = await openStream(b.baseUrl, phone.token);
    const revokedAt = Date.now();
    expect(
      (await fetch(`${a.baseUrl}/api/devices/${phone.deviceId}`, { method: 'DELETE', headers: adminHeaders }))
        .status,
    ).toBe(204);
    const end = await stream.ended;
    expect(end.text).not.toContain('[DONE]');
    // 1 s poll, with a generous margin for a loaded machine; the reply itself would take 2 s a word
    expect(end.at - revokedAt).toBeLessThan(4000);
    await expectProblem(
      await fetch(`${b.baseUrl}/api/providers`, { headers: phone.bearer }),
      401,
      'unauthorized',
    );
  });
});
