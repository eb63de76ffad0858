import { randomUUID } from 'node:crypto';
import { ChatResponse, SessionHistory, SessionListResponse } from '@pa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionTitle } from '../src/features/sessions/session-title.ts';
import { expectContract, expectProblem, postJson } from './support/http.ts';
import { GATEWAY_BACKENDS, startTestGateway, type TestGateway } from './support/test-app.ts';

describe.each(GATEWAY_BACKENDS)('chat sessions on %s', (_name, backend) => {
  let g: TestGateway;
  beforeAll(async () => {
    g = await startTestGateway({ backend, env: { CHAT_RATE_LIMIT_PER_MIN: '10000' } });
  });
  afterAll(async () => g?.close());

  const get = (path: string) => fetch(`${g.baseUrl}${path}`);
  const history = async (sessionId: string, query = '') =>
    expectContract(SessionHistory, await (await get(`/api/chat/sessions/${sessionId}${query}`)).json());
  const list = async (ids: string[]) => {
    const res = await get(`/api/chat/sessions?ids=${ids.join(',')}`);
    expect(res.status).toBe(200);
    return expectContract(SessionListResponse, await res.json()).sessions;
  };

  let unique = 0;
  const newId = (label: string) => `${label}-${Date.now()}-${++unique}`;

  /** A session of `count` stored turns, user and assistant in turn ("q1", "a2", …), on the given channel. */
  async function seedSession(opts: {
    channel?: string;
    externalId?: string;
    count: number;
    lastActiveAt?: Date;
    statusOf?: (n: number) => string;
  }) {
    const externalId = opts.externalId ?? newId('seeded');
    const session = await g.db.chatSession.create({
      data: {
        channel: opts.channel ?? 'web',
        externalId,
        ...(opts.lastActiveAt ? { lastActiveAt: opts.lastActiveAt } : {}),
      },
    });
    // one by one, so that seq follows n
    for (let n = 1; n <= opts.count; n++) {
      await g.db.turn.create({
        data: {
          id: randomUUID(),
          sessionId: session.id,
          role: n % 2 ? 'user' : 'assistant',
          content: n % 2 ? `q${n}` : `a${n}`,
          status: opts.statusOf?.(n) ?? 'complete',
        },
      });
    }
    return externalId;
  }

  describe('GET /api/chat/sessions/:sessionId', () => {
    it('reads back a conversation held through the chat API, titled by its first question', async () => {
      const first = await postJson(g.baseUrl, '/api/chat', { message: '  my name is\n\n  Grace  ' });
      const { sessionId } = expectContract(ChatResponse, await first.json());
      const second = expectContract(
        ChatResponse,
        await (await postJson(g.baseUrl, '/api/chat', { message: 'what is my name?', sessionId })).json(),
      );
      const h = await history(sessionId);
      expect(h.sessionId).toBe(sessionId);
      expect(h.title).toBe('my name is Grace');
      expect(h.turns.map((t) => [t.role, t.status])).toEqual([
        ['user', 'complete'],
        ['assistant', 'complete'],
        ['user', 'complete'],
        ['assistant', 'complete'],
      ]);
      expect(h.turns[2]!.content).toBe('what is my name?');
      expect(h.turns[3]!.content).toBe(second.reply);
      expect(h.nextBefore).toBeNull();
      expect(Date.parse(h.lastActiveAt)).toBeGreaterThanOrEqual(Date.parse(h.createdAt));
    });

    it('pages backwards through 120 turns with no gap and no repeat, then forwards again with the same cursors', async () => {
      const sessionId = await seedSession({ count: 120 });
      const pages: SessionHistory[] = [];
      let before: string | null | undefined;
      do {
        const page = await history(sessionId, `?limit=25${before ? `&before=${before}` : ''}`);
        pages.push(page);
        before = page.nextBefore;
      } while (before && pages.length < 10);

      expect(pages.map((p) => p.turns.length)).toEqual([25, 25, 25, 25, 20]);
      expect(pages.at(-1)!.nextBefore).toBeNull();
      const contents = pages
        .slice()
        .reverse()
        .flatMap((p) => p.turns.map((t) => t.content));
      expect(contents).toEqual(Array.from({ length: 120 }, (_, i) => (i % 2 ? `a${i + 1}` : `q${i + 1}`)));
      // each turn has its own id, and each cursor is the oldest id of its page
      const ids = pages.flatMap((p) => p.turns.map((t) => t.id));
      expect(new Set(ids).size).toBe(120);
      for (const p of pages.slice(0, -1)) expect(p.nextBefore).toBe(p.turns[0]!.id);

      // forwards: the turns after each page's first turn are the next-newer page's turns, read the same way
      const [third, fourth] = [pages[2]!, pages[3]!];
      const again = await history(sessionId, `?limit=25&before=${pages[1]!.nextBefore}`);
      expect(again).toEqual(third);
      expect(await history(sessionId, `?limit=25&before=${third.nextBefore}`)).toEqual(fourth);
      expect(pages[0]!.title).toBe('q1');
    });

    it('answers the latest 50 turns by default and one page when the session is short', async () => {
      const sessionId = await seedSession({ count: 60 });
      const h = await history(sessionId);
      expect(h.turns).toHaveLength(50);
      expect(h.turns[0]!.content).toBe('q11');
      expect(h.turns.at(-1)!.content).toBe('a60');
      expect(h.nextBefore).toBe(h.turns[0]!.id);
      const exact = await seedSession({ count: 4 });
      expect((await history(exact, '?limit=4')).nextBefore).toBeNull();
      expect((await history(exact, '?limit=3')).turns.map((t) => t.content)).toEqual(['a2', 'q3', 'a4']);
    });

    it('shows interrupted and error turns as such', async () => {
      const sessionId = await seedSession({
        count: 4,
        statusOf: (n) => (n === 2 ? 'interrupted' : n === 4 ? 'error' : 'complete'),
      });
      expect((await history(sessionId)).turns.map((t) => t.status)).toEqual([
        'complete',
        'interrupted',
        'complete',
        'error',
      ]);
    });

    it('answers a cleared conversation with no turns, untitled', async () => {
      const sessionId = await seedSession({ count: 6 });
      const cleared = await postJson(g.baseUrl, '/api/clear', { sessionId });
      expect(cleared.status).toBe(200);
      const h = await history(sessionId);
      expect(h).toMatchObject({ sessionId, title: 'New conversation', turns: [], nextBefore: null });
    });

    it('answers 404 session-not-found for an unknown id and for another channel’s session', async () => {
      await expectProblem(await get(`/api/chat/sessions/${newId('nobody')}`), 404, 'session-not-found');
      const shared = newId('shared');
      await seedSession({ channel: 'cli', externalId: shared, count: 2 });
      await seedSession({ channel: 'telegram', externalId: `${shared}-tg`, count: 2 });
      await expectProblem(await get(`/api/chat/sessions/${shared}`), 404, 'session-not-found');
      await expectProblem(await get(`/api/chat/sessions/${shared}-tg`), 404, 'session-not-found');
      // a web session of the same external id is its own conversation, and shows only its own turns
      const web = await g.db.chatSession.create({ data: { channel: 'web', externalId: shared } });
      await g.db.turn.create({
        data: { sessionId: web.id, role: 'user', content: 'web only', status: 'complete' },
      });
      expect((await history(shared)).turns.map((t) => t.content)).toEqual(['web only']);
    });

    it.each([
      ['a session id with bad characters', '/api/chat/sessions/bad%20id', '#/sessionId'],
      ['a session id over 128 characters', `/api/chat/sessions/${'a'.repeat(129)}`, '#/sessionId'],
      ['limit 0', '/api/chat/sessions/abc?limit=0', '#/limit'],
      ['limit 101', '/api/chat/sessions/abc?limit=101', '#/limit'],
      ['a limit that is not a number', '/api/chat/sessions/abc?limit=ten', '#/limit'],
      ['a cursor that is not a number', '/api/chat/sessions/abc?before=abc', '#/before'],
      ['a negative cursor', '/api/chat/sessions/abc?before=-5', '#/before'],
      ['a cursor of 19 digits', `/api/chat/sessions/abc?before=${'9'.repeat(19)}`, '#/before'],
      ['an unknown parameter', '/api/chat/sessions/abc?page=2', '#/page'],
    ])('rejects %s with 400 validation-failed', async (_name, path, pointer) => {
      const p = await expectProblem(await get(path), 400, 'validation-failed');
      expect(p.errors?.map((e) => e.pointer)).toContain(pointer);
    });
  });

  describe('GET /api/chat/sessions?ids=', () => {
    it('lists only the named web sessions that hold turns, most recently active first', async () => {
      const old = await seedSession({ count: 2, lastActiveAt: new Date(Date.now() - 86_400_000) });
      const recent = await seedSession({ count: 4, lastActiveAt: new Date(Date.now() - 60_000) });
      const empty = await seedSession({ count: 0 });
      const cli = await seedSession({ channel: 'cli', count: 2 });
      const other = await seedSession({ count: 2 }); // exists, but not asked for
      const sessions = await list([old, empty, recent, cli, newId('unknown'), old]);
      expect(sessions.map((s) => [s.sessionId, s.turnCount, s.title])).toEqual([
        [recent, 4, 'q1'],
        [old, 2, 'q1'],
      ]);
      expect(sessions.some((s) => s.sessionId === other)).toBe(false);
      expect(Date.parse(sessions[0]!.lastActiveAt)).toBeGreaterThan(Date.parse(sessions[1]!.lastActiveAt));
    });

    it('leaves out a cleared conversation and answers an empty list for unknown ids', async () => {
      const sessionId = await seedSession({ count: 2 });
      expect(await list([sessionId])).toHaveLength(1);
      expect((await postJson(g.baseUrl, '/api/clear', { sessionId })).status).toBe(200);
      expect(await list([sessionId])).toEqual([]);
      expect(await list([newId('a'), newId('b')])).toEqual([]);
    });

    it('answers 50 sessions', async () => {
      const ids = await Promise.all(Array.from({ length: 50 }, () => seedSession({ count: 1 })));
      expect(await list(ids)).toHaveLength(50);
    });

    it.each([
      ['no ids', '/api/chat/sessions', '#/ids'],
      ['an empty id list', '/api/chat/sessions?ids=', '#/ids'],
      [
        '51 ids',
        `/api/chat/sessions?ids=${Array.from({ length: 51 }, (_, i) => `s${i}`).join(',')}`,
        '#/ids',
      ],
      ['an id with bad characters', '/api/chat/sessions?ids=ok,bad%20id', '#/ids'],
      ['an empty id between commas', '/api/chat/sessions?ids=a,,b', '#/ids'],
      ['an id over 128 characters', `/api/chat/sessions?ids=${'a'.repeat(129)}`, '#/ids'],
      ['an unknown parameter', '/api/chat/sessions?ids=a&limit=3', '#/limit'],
    ])('rejects %s with 400 validation-failed', async (_name, path, pointer) => {
      const p = await expectProblem(await get(path), 400, 'validation-failed');
      expect(p.errors?.map((e) => e.pointer)).toContain(pointer);
    });
  });

  describe('sessionTitle', () => {
    it('collapses whitespace and shortens to 80 characters with an ellipsis', () => {
      expect(sessionTitle(' Which\tgas  safety\ncertificates? ')).toBe('Which gas safety certificates?');
      expect(sessionTitle('x'.repeat(80))).toBe('x'.repeat(80));
      const long = sessionTitle(`${'word '.repeat(30)}`);
      expect(Array.from(long)).toHaveLength(80);
      expect(long.endsWith('…')).toBe(true);
      expect(sessionTitle(`${'é'.repeat(79)}😀😀`)).toBe(`${'é'.repeat(79)}…`);
      expect(sessionTitle('   ')).toBe('New conversation');
      expect(sessionTitle(null)).toBe('New conversation');
    });
  });
});
