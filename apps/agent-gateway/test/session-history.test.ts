import { randomUUID } from 'node:crypto';
import { ChatResponse, SessionHistory, SessionListResponse, SessionSummary } from '@pa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionTitle } from '../src/features/sessions/session-title.ts';
import { newWorkspace, pairDevice, type PairedDevice, TOKEN_ENV } from './support/access.ts';
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
      ['an empty id list', '/api/chat/sessions?ids=', '#/ids'],
      [
        '51 ids',
        `/api/chat/sessions?ids=${Array.from({ length: 51 }, (_, i) => `s${i}`).join(',')}`,
        '#/ids',
      ],
      ['an id with bad characters', '/api/chat/sessions?ids=ok,bad%20id', '#/ids'],
      ['an empty id between commas', '/api/chat/sessions?ids=a,,b', '#/ids'],
      ['an id over 128 characters', `/api/chat/sessions?ids=${'a'.repeat(129)}`, '#/ids'],
      ['ids with limit', '/api/chat/sessions?ids=a&limit=3', '#/limit'],
      ['ids with a search', '/api/chat/sessions?ids=a&q=gas', '#/q'],
      ['an unknown parameter', '/api/chat/sessions?ids=a&page=2', '#/page'],
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

// The history list kept on the server (issue 34): a paired device's own conversations, with no ids from the
// browser; paged, searched, renamed and deleted, never reaching another device's or workspace's.
describe.each(GATEWAY_BACKENDS)('the conversation list on %s', (_name, backend) => {
  let g: TestGateway;
  let laptop: PairedDevice; // workspace A
  let phone: PairedDevice; // workspace A, another device
  let other: PairedDevice; // workspace B
  beforeAll(async () => {
    g = await startTestGateway({
      backend,
      env: { ...TOKEN_ENV, CHAT_RATE_LIMIT_PER_MIN: '10000', SESSION_TTL_DAYS: '30' },
      redis: 'none',
    });
    const wsA = await newWorkspace(g, 'list-a');
    const wsB = await newWorkspace(g, 'list-b');
    laptop = await pairDevice(g, wsA, ['chat'], 'laptop');
    phone = await pairDevice(g, wsA, ['chat'], 'phone');
    other = await pairDevice(g, wsB, ['chat'], 'other');
  });
  afterAll(async () => g?.close());

  const send = (device: PairedDevice, path: string, init: RequestInit = {}) =>
    fetch(`${g.baseUrl}${path}`, {
      ...init,
      headers: { ...device.bearer, ...(init.body ? { 'content-type': 'application/json' } : {}) },
    });
  const listOf = async (device: PairedDevice, query = '') => {
    const res = await send(device, `/api/chat/sessions${query}`);
    expect(res.status, await res.clone().text()).toBe(200);
    return expectContract(SessionListResponse, await res.json());
  };
  const titles = async (device: PairedDevice, query = '') =>
    (await listOf(device, query)).sessions.map((s) => s.title);
  const rename = (device: PairedDevice, sessionId: string, body: unknown) =>
    send(device, `/api/chat/sessions/${sessionId}`, { method: 'PATCH', body: JSON.stringify(body) });
  const remove = (device: PairedDevice, sessionId: string) =>
    send(device, `/api/chat/sessions/${sessionId}`, { method: 'DELETE' });

  /** A conversation of one exchange started by `device`, last active `minutesAgo` minutes ago. */
  async function converse(device: PairedDevice, message: string, minutesAgo = 0) {
    const res = await postJson(g.baseUrl, '/api/chat', { message }, device.bearer);
    expect(res.status, await res.clone().text()).toBe(200);
    const { sessionId } = expectContract(ChatResponse, await res.json());
    await g.db.chatSession.updateMany({
      where: { channel: 'web', externalId: sessionId },
      data: { lastActiveAt: new Date(Date.now() - minutesAgo * 60_000) },
    });
    return sessionId;
  }

  /** A fresh device of a fresh workspace: a list that holds only what the test puts in it. */
  const freshDevice = async () => pairDevice(g, await newWorkspace(g, 'fresh'), ['chat'], 'fresh');

  describe('GET /api/chat/sessions', () => {
    it('lists the device’s own conversations without ids, most recently active first, and no one else’s', async () => {
      const me = await freshDevice();
      await converse(me, 'Which gas certificates expire soon?', 30);
      await converse(me, 'Show the arrears in Leeds', 5);
      await converse(me, 'List the voids', 60 * 30);
      const mine = await listOf(me);
      expect(mine.sessions.map((s) => [s.title, s.turnCount])).toEqual([
        ['Show the arrears in Leeds', 2],
        ['Which gas certificates expire soon?', 2],
        ['List the voids', 2],
      ]);
      expect(mine.nextBefore).toBeNull();
      // the device id is what the list follows, whichever browser (cookie) or script (bearer) it uses
      const cookieList = await fetch(`${g.baseUrl}/api/chat/sessions`, { headers: { cookie: me.cookie } });
      expect(expectContract(SessionListResponse, await cookieList.json()).sessions).toEqual(mine.sessions);

      await converse(phone, 'phone only question');
      await converse(laptop, 'laptop only question');
      expect(await titles(phone)).toContain('phone only question');
      expect(await titles(phone)).not.toContain('laptop only question');
      expect(await titles(laptop)).not.toContain('phone only question');
      expect(await titles(other)).toEqual([]);
    });

    it('pages 5 conversations 2 at a time with no gap and no repeat', async () => {
      const me = await freshDevice();
      const ids: string[] = [];
      for (let n = 1; n <= 5; n++) ids.push(await converse(me, `question ${n}`, 10 * (6 - n)));
      const seen: string[][] = [];
      let before: string | null = null;
      do {
        const page: Awaited<ReturnType<typeof listOf>> = await listOf(
          me,
          `?limit=2${before ? `&before=${encodeURIComponent(before)}` : ''}`,
        );
        seen.push(page.sessions.map((s) => s.sessionId));
        before = page.nextBefore;
      } while (before && seen.length < 5);
      expect(seen).toEqual([[ids[4], ids[3]], [ids[2], ids[1]], [ids[0]]]);
    });

    it('searches titles and the text of every turn, ignoring case; % and _ are plain characters', async () => {
      const me = await freshDevice();
      const gas = await converse(me, 'Which GAS certificates expire at MAN-004?');
      await converse(me, 'Show the arrears in Leeds');
      const percent = await converse(me, 'What is 100% of the rent?');
      expect(await titles(me, '?q=gas')).toEqual(['Which GAS certificates expire at MAN-004?']);
      expect(await titles(me, '?q=man-004')).toEqual(['Which GAS certificates expire at MAN-004?']);
      expect((await listOf(me, `?q=${encodeURIComponent('100%')}`)).sessions.map((s) => s.sessionId)).toEqual(
        [percent],
      );
      expect(await titles(me, `?q=${encodeURIComponent('_')}`)).toEqual([]);
      expect(await titles(me, '?q=nothing-like-this')).toEqual([]);

      // a reply's text is searched too: the assistant turn of the gas conversation
      const reply = await g.db.turn.findFirstOrThrow({
        where: { session: { externalId: gas }, role: 'assistant' },
      });
      const word = reply.content.split(/\W+/).find((w) => w.length > 5) ?? reply.content.slice(0, 6);
      expect(
        (await listOf(me, `?q=${encodeURIComponent(word.toUpperCase())}`)).sessions.map((s) => s.sessionId),
      ).toContain(gas);

      // and a title given by the user
      expect((await rename(me, gas, { title: 'Boiler paperwork' })).status).toBe(200);
      expect(await titles(me, '?q=boiler')).toEqual(['Boiler paperwork']);
      // another device's search does not reach it
      expect(await titles(other, '?q=boiler')).toEqual([]);
    });

    it('leaves out cleared conversations and those past the retention', async () => {
      const me = await freshDevice();
      const cleared = await converse(me, 'to be cleared');
      await converse(me, 'kept');
      const old = await converse(me, 'too old');
      await g.db.chatSession.updateMany({
        where: { externalId: old },
        data: { lastActiveAt: new Date(Date.now() - 31 * 86_400_000) },
      });
      expect((await postJson(g.baseUrl, '/api/clear', { sessionId: cleared }, me.bearer)).status).toBe(200);
      expect(await titles(me)).toEqual(['kept']);
    });

    it.each([
      ['limit 0', '?limit=0', '#/limit'],
      ['limit 51', '?limit=51', '#/limit'],
      ['a search of 101 characters', `?q=${'a'.repeat(101)}`, '#/q'],
      ['a blank search', '?q=%20%20', '#/q'],
      ['a search with NUL', '?q=a%00b', '#/q'],
      ['a cursor not from this API', '?before=yesterday', '#/before'],
      ['an unknown parameter', '?page=2', '#/page'],
    ])('rejects %s with 400 validation-failed', async (_n, query, pointer) => {
      const res = await send(laptop, `/api/chat/sessions${query}`);
      const p = await expectProblem(res, 400, 'validation-failed');
      expect(p.errors?.map((e) => e.pointer)).toContain(pointer);
    });
  });

  describe('PATCH /api/chat/sessions/:sessionId', () => {
    it('renames a conversation on one line, and null gives back its first question', async () => {
      const me = await freshDevice();
      const id = await converse(me, 'Which EICRs are due?');
      const res = await rename(me, id, { title: '  EICR\n  renewals   2026 ' });
      expect(res.status).toBe(200);
      const renamed = expectContract(SessionSummary, await res.json());
      expect(renamed).toMatchObject({ sessionId: id, title: 'EICR renewals 2026', turnCount: 2 });
      expect(await titles(me)).toEqual(['EICR renewals 2026']);
      const page = await send(me, `/api/chat/sessions/${id}`);
      expect(expectContract(SessionHistory, await page.json()).title).toBe('EICR renewals 2026');
      // 80 characters by code point is the bound
      expect((await rename(me, id, { title: `${'é'.repeat(79)}😀` })).status).toBe(200);
      expect((await rename(me, id, { title: null })).status).toBe(200);
      expect(await titles(me)).toEqual(['Which EICRs are due?']);
    });

    it('answers 404 session-not-found for another device’s, another workspace’s and an unknown conversation', async () => {
      const id = await converse(laptop, 'laptop’s own');
      await expectProblem(await rename(phone, id, { title: 'mine now' }), 404, 'session-not-found');
      await expectProblem(await rename(other, id, { title: 'mine now' }), 404, 'session-not-found');
      await expectProblem(
        await rename(laptop, `nobody-${Date.now()}`, { title: 'x' }),
        404,
        'session-not-found',
      );
      const row = await g.db.chatSession.findFirstOrThrow({ where: { externalId: id } });
      expect(row.title).toBeNull();
    });

    it.each([
      ['a blank title', { title: ' \n ' }, '#/title'],
      ['81 characters', { title: 'x'.repeat(81) }, '#/title'],
      ['a NUL', { title: 'a\u0000b' }, '#/title'],
      ['a number', { title: 7 }, '#/title'],
      ['no title', {}, '#/title'],
      ['an unknown field', { title: 'ok', pinned: true }, '#/pinned'],
    ])('rejects %s with 400 validation-failed', async (_n, body, pointer) => {
      const id = await converse(laptop, 'to rename badly');
      const p = await expectProblem(await rename(laptop, id, body), 400, 'validation-failed');
      expect(p.errors?.map((e) => e.pointer)).toContain(pointer);
    });
  });

  describe('DELETE /api/chat/sessions/:sessionId', () => {
    it('deletes the conversation with its turns; it is gone from the list and its history', async () => {
      const me = await freshDevice();
      const id = await converse(me, 'delete me');
      await converse(me, 'keep me');
      const session = await g.db.chatSession.findFirstOrThrow({ where: { externalId: id } });
      expect(await g.db.turn.count({ where: { sessionId: session.id } })).toBe(2);

      expect((await remove(me, id)).status).toBe(204);
      expect(await g.db.chatSession.count({ where: { id: session.id } })).toBe(0);
      expect(await g.db.turn.count({ where: { sessionId: session.id } })).toBe(0);
      expect(await titles(me)).toEqual(['keep me']);
      await expectProblem(await send(me, `/api/chat/sessions/${id}`), 404, 'session-not-found');
      await expectProblem(await remove(me, id), 404, 'session-not-found');
    });

    it('answers 404 session-not-found for another device’s or workspace’s conversation, which stays', async () => {
      const id = await converse(laptop, 'not yours');
      await expectProblem(await remove(phone, id), 404, 'session-not-found');
      await expectProblem(await remove(other, id), 404, 'session-not-found');
      expect(await g.db.turn.count({ where: { session: { externalId: id } } })).toBe(2);
      await expectProblem(await remove(laptop, 'bad%20id'), 400, 'validation-failed');
    });

    it('a conversation used again after its deletion starts empty', async () => {
      const me = await freshDevice();
      const first = await postJson(g.baseUrl, '/api/chat', { message: 'my name is Ada' }, me.bearer);
      const { sessionId } = expectContract(ChatResponse, await first.json());
      expect((await remove(me, sessionId)).status).toBe(204);
      const again = await postJson(
        g.baseUrl,
        '/api/chat',
        { message: 'what is my name?', sessionId },
        me.bearer,
      );
      expect(expectContract(ChatResponse, await again.json()).reply).toBe(
        "You haven't told me your name yet.",
      );
    });
  });
});
