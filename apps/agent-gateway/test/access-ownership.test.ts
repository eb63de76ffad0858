import {
  ChatResponse,
  ClearResponse,
  OpenAICompletion,
  SessionHistory,
  SessionListResponse,
  WebContextResponse,
} from '@pa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, newWorkspace, pairDevice, type PairedDevice, TOKEN_ENV } from './support/access.ts';
import { expectContract, expectProblem, postJson } from './support/http.ts';
import { parseSse } from './support/sse.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';

// Sessions bound to their owner (docs/access.md): with GATEWAY_AUTH=token a chat session belongs to the workspace of
// the device that started it. A device of another workspace that sends the same session id reaches nothing of it:
// not its memory, not its replies, not its history; clearing "it" clears nothing. Devices of one workspace share
// their workspace's conversations.

let g: TestGateway;
let a: PairedDevice; // workspace A
let a2: PairedDevice; // workspace A, another device
let b: PairedDevice; // workspace B

beforeAll(async () => {
  g = await startTestGateway({
    env: { ...TOKEN_ENV, CHAT_RATE_LIMIT_PER_MIN: '10000' },
    redis: 'none',
  });
  const wsA = await newWorkspace(g, 'owner-a');
  const wsB = await newWorkspace(g, 'owner-b');
  a = await pairDevice(g, wsA, ['chat'], 'laptop A');
  a2 = await pairDevice(g, wsA, ['chat'], 'phone A');
  b = await pairDevice(g, wsB, ['chat'], 'laptop B');
});
afterAll(async () => {
  await g?.close();
});

const unique = (name: string) => `${name}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;

async function say(device: { bearer: Record<string, string> }, message: string, sessionId: string) {
  const res = await postJson(g.baseUrl, '/api/chat', { message, sessionId }, device.bearer);
  expect(res.status, await res.clone().text()).toBe(200);
  return expectContract(ChatResponse, await res.json());
}

async function get(path: string, headers: Record<string, string>) {
  return fetch(`${g.baseUrl}${path}`, { headers });
}

describe('a session belongs to its device’s workspace', () => {
  it('another workspace’s device cannot continue it: the same id there is a new, empty conversation', async () => {
    const id = unique('continue');
    await say(a, 'my name is Ada', id);
    expect((await say(b, 'what is my name?', id)).reply).toBe("You haven't told me your name yet.");
    // and B's turn did not land in A's conversation
    expect((await say(a, 'what is my name?', id)).reply).toBe('Your name is **Ada**.');
  });

  it('devices of the same workspace share it', async () => {
    const id = unique('shared');
    await say(a, 'my name is Grace', id);
    expect((await say(a2, 'what is my name?', id)).reply).toBe('Your name is **Grace**.');
  });

  it('another workspace’s device cannot clear it', async () => {
    const id = unique('clear');
    await say(a, 'my name is Alan', id);
    const res = await postJson(g.baseUrl, '/api/clear', { sessionId: id }, b.bearer);
    expect(res.status).toBe(200);
    expect(expectContract(ClearResponse, await res.json()).turnsDeleted).toBe(0);
    expect((await say(a, 'what is my name?', id)).reply).toBe('Your name is **Alan**.');
    // its owner can
    const own = await postJson(g.baseUrl, '/api/clear', { sessionId: id }, a.bearer);
    expect(expectContract(ClearResponse, await own.json()).turnsDeleted).toBeGreaterThanOrEqual(4);
  });

  it('another workspace’s device cannot replay its reply with the same requestId', async () => {
    const id = unique('replay');
    const requestId = unique('req');
    const stream = (device: PairedDevice, message: string) =>
      get(
        `/api/chat/stream?${new URLSearchParams({ message, sessionId: id, requestId })}`,
        device.bearer,
      ).then(async (r) => {
        expect(r.status).toBe(200);
        return parseSse(await r.text())
          .flatMap((e) => (e.data && e.data !== '[DONE]' ? [e.data] : []))
          .map((e) => JSON.parse(e) as { choices?: { delta?: { content?: string } }[] })
          .map((e) => e.choices?.[0]?.delta?.content ?? '')
          .join('');
      });
    await say(a, 'my name is Katherine', id);
    const first = await stream(a, 'what is my name?');
    expect(first).toBe('Your name is **Katherine**.');
    // B's identical request is B's own first turn, answered afresh: nothing of A's reply comes back
    const other = await stream(b, 'what is my name?');
    expect(other).toBe("You haven't told me your name yet.");
    // A's repeat is still a replay of A's stored reply
    expect(await stream(a, 'ignored on a replay')).toBe('Your name is **Katherine**.');
  });

  it('another workspace’s device cannot read its history or find it in a list', async () => {
    const id = unique('history');
    await say(a, 'which properties are in Leeds?', id);
    const own = await get(`/api/chat/sessions/${id}`, a.bearer);
    expect(own.status).toBe(200);
    expect(expectContract(SessionHistory, await own.json()).turns.length).toBe(2);
    const shared = await get(`/api/chat/sessions/${id}`, a2.bearer);
    expect(shared.status).toBe(200);

    await expectProblem(await get(`/api/chat/sessions/${id}`, b.bearer), 404, 'session-not-found');
    const list = await get(`/api/chat/sessions?ids=${id}`, b.bearer);
    expect(list.status).toBe(200);
    expect(expectContract(SessionListResponse, await list.json()).sessions).toEqual([]);
    const ownList = await get(`/api/chat/sessions?ids=${id}`, a.bearer);
    expect(
      expectContract(SessionListResponse, await ownList.json()).sessions.map((s) => s.sessionId),
    ).toEqual([id]);
  });

  it('the operator’s sessions are not a device’s, nor the other way round', async () => {
    const id = unique('operator');
    await say({ bearer: adminHeaders }, 'my name is Operator', id);
    expect((await say(a, 'what is my name?', id)).reply).toBe("You haven't told me your name yet.");
    await expectProblem(
      await get(`/api/chat/sessions/${unique('none')}`, adminHeaders),
      404,
      'session-not-found',
    );
  });

  it('the OpenAI-compatible route follows the same rule', async () => {
    const user = unique('openai');
    const complete = (device: PairedDevice, content: string) =>
      postJson(
        g.baseUrl,
        '/v1/chat/completions',
        { user, messages: [{ role: 'user', content }] },
        device.bearer,
      ).then(async (r) => {
        expect(r.status, await r.clone().text()).toBe(200);
        return expectContract(OpenAICompletion, await r.json()).choices[0]!.message.content;
      });
    await complete(a, 'my name is Barbara');
    expect(await complete(b, 'what is my name?')).toBe("You haven't told me your name yet.");
    expect(await complete(a, 'what is my name?')).toBe('Your name is **Barbara**.');
  });
});

describe('GET /api/web/context with tokens on', () => {
  it('tells an anonymous page to pair, and reveals no id', async () => {
    const res = await fetch(`${g.baseUrl}/api/web/context`);
    expect(res.status).toBe(200);
    const body = expectContract(WebContextResponse, await res.json());
    expect(body).toMatchObject({
      workspaceId: null,
      worker: null,
      access: { mode: 'token', caller: 'anonymous', scopes: [], deviceId: null },
    });
  });

  it('gives a device its own workspace and scopes, and the operator every scope', async () => {
    const res = await get('/api/web/context', a.bearer);
    const body = expectContract(WebContextResponse, await res.json());
    expect(body.workspaceId).toBe(a.workspaceId);
    expect(body.access).toEqual({ mode: 'token', caller: 'device', scopes: ['chat'], deviceId: a.deviceId });
    const op = expectContract(WebContextResponse, await (await get('/api/web/context', adminHeaders)).json());
    expect(op.access).toEqual({
      mode: 'token',
      caller: 'operator',
      scopes: ['chat', 'workers:write', 'admin'],
      deviceId: null,
    });
  });

  it('treats a bad token on this open route as no token', async () => {
    const res = await get('/api/web/context', { authorization: 'Bearer gwt_nonsense' });
    expect(res.status).toBe(200);
    expect(expectContract(WebContextResponse, await res.json()).access.caller).toBe('anonymous');
  });
});
