import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from './support/fake-openai.ts';
import { expectProblem, postJson } from './support/http.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';

// A provider failure before any reply has been sent is an HTTP problem: the vendor's own rate limit is ours to
// report as 503 (try later), any other vendor failure as 502. The routes do not catch it: problemHandler maps it.

let fake: FakeOpenAI;
let g: TestGateway;
beforeAll(async () => {
  fake = await startFakeOpenAI();
  g = await startTestGateway({
    redis: 'none',
    env: { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-test', CHAT_RATE_LIMIT_PER_MIN: '10000' },
  });
});
afterAll(async () => {
  await g?.close();
  await fake?.close();
});

describe('provider failures on the JSON chat routes', () => {
  it('POST /api/chat: the vendor’s 429 → 503 provider-rate-limited; the turn is stored as an error', async () => {
    fake.script({ status: 429, headers: { 'retry-after': '20' } });
    const res = await postJson(g.baseUrl, '/api/chat', {
      message: 'hello',
      provider: 'openai',
      sessionId: 'provider-429',
    });
    const p = await expectProblem(res, 503, 'provider-rate-limited');
    expect(p.title).toBe('Provider error');
    const session = await g.db.chatSession.findUniqueOrThrow({
      where: { channel_owner_externalId: { channel: 'web', owner: '', externalId: 'provider-429' } },
      include: { turns: { orderBy: { seq: 'asc' } } },
    });
    expect(session.turns.map((t) => [t.role, t.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'error'],
    ]);
  });

  it('POST /v1/chat/completions: a vendor 400 → 502 provider-error with the vendor’s words', async () => {
    fake.script({ status: 400, error: { message: 'max_tokens too large' } });
    const res = await postJson(g.baseUrl, '/v1/chat/completions', {
      model: 'openai',
      messages: [{ role: 'user', content: 'hello' }],
    });
    const p = await expectProblem(res, 502, 'provider-error');
    expect(p.detail).toContain('max_tokens too large');
  });
});
