import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSessionRepository,
  type SessionRepository,
} from '../src/features/sessions/session-repository.ts';
import type { NamedStatement, StatementRunner } from '../src/lib/db.ts';
import { BACKENDS, type GatewayBackend } from './support/backends.ts';
import { scaled } from '@pa/http-kit/testing';

// A chat turn's two writes, group-committed, on both databases the gateway runs on: PostgreSQL (named prepared
// statements on the adapter's pool) and the embedded PGlite of `npm start` (the same SQL through Prisma).

describe.each(BACKENDS)('turn store on %s', (name, open) => {
  let backend: GatewayBackend;
  let sessions: SessionRepository;
  /** statements sent, counted around the real runner */
  let sent = 0;
  /** the rows of the latest batch of turn starts, as the database sent them */
  let begunRows: { context: string | null }[] = [];
  beforeAll(async () => {
    backend = await open('gateway_turns');
    // on PGlite the statements go through Prisma
    expect(backend.pooled).toBe(name === 'PostgreSQL');
    const counted: StatementRunner = async <T>(statement: NamedStatement, values: unknown[]) => {
      sent++;
      const rows = await backend.statements<T>(statement, values);
      if (statement.name === 'gateway_begin_turns') begunRows = rows as { context: string | null }[];
      return rows;
    };
    sessions = createSessionRepository(backend.db, counted);
  }, scaled(60_000));
  afterAll(async () => backend?.close());

  const start = (
    externalId: string,
    message: string,
    extra: { requestId?: string; provider?: string } = {},
  ) => sessions.begin({ channel: 'web', owner: '', externalId, message, createdAt: new Date(), ...extra });

  it('begins a turn in one statement: the session made, the message stored, the earlier turns as context', async () => {
    const before = sent;
    const first = await start('one', 'hello', { provider: 'openai' });
    expect(sent - before).toBe(1);
    expect(first).toMatchObject({ stored: true, context: [], session: { provider: 'openai' } });
    await sessions.addTurn(first.session.id, {
      role: 'assistant',
      content: 'Hello!',
      status: 'complete',
      createdAt: new Date(Date.now() + 1),
    });
    const second = await start('one', 'again');
    expect(second.session).toEqual(first.session); // same session, provider kept
    expect(second.context).toEqual([
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'Hello!' },
    ]);
    const row = await backend.db.chatSession.findUniqueOrThrow({ where: { id: first.session.id } });
    expect(row.lastActiveAt.getTime()).toBeGreaterThanOrEqual(row.createdAt.getTime());
  });

  it('concurrent turns share statements; a session’s turns go in order, each seeing the ones before', async () => {
    const before = sent;
    const perSession = 5;
    const ids = Array.from({ length: 8 }, (_, i) => `busy-${i}`);
    const begun = await Promise.all(
      Array.from({ length: perSession }, (_, n) => ids.map((id) => start(id, `${id} #${n}`))).flat(),
    );
    expect(begun.every((b) => b.stored)).toBe(true);
    expect(sent - before).toBeLessThan(begun.length); // 40 turns, fewer statements
    for (const id of ids) {
      const mine = begun.filter((_, i) => ids[i % ids.length] === id);
      // the n-th turn of a session saw the n before it, in the order they were sent
      expect(mine.map((b) => b.context.map((t) => t.content))).toEqual(
        Array.from({ length: perSession }, (_, n) => Array.from({ length: n }, (_, k) => `${id} #${k}`)),
      );
      expect(new Set(mine.map((b) => b.session.id)).size).toBe(1);
    }
  });

  it('stores a requestId’s user turn once: a repeat, even a concurrent one, is told it is a repeat', async () => {
    const [a, b] = await Promise.all([
      start('replay', 'hi', { requestId: 'r-1' }),
      start('replay', 'hi', { requestId: 'r-1' }),
    ]);
    expect([a.stored, b.stored]).toEqual([true, false]);
    const c = await start('replay', 'hi', { requestId: 'r-1' });
    expect(c.stored).toBe(false);
    const found = await sessions.findByRequest(a.session.id, 'r-1');
    expect(found.user?.content).toBe('hi');
  });

  it('a row that cannot be stored fails only its own caller, not the rest of its batch', async () => {
    const { session } = await start('mixed', 'hi');
    const missing = '00000000-0000-4000-8000-000000000000'; // no such session: a foreign-key violation
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        sessions.addTurn(i === 7 ? missing : session.id, {
          role: 'assistant',
          content: `reply ${i}`,
          status: 'complete',
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(
      Array.from({ length: 10 }, (_, i) => (i === 7 ? 'rejected' : 'fulfilled')),
    );
    const stored = await backend.db.turn.findMany({ where: { sessionId: session.id, role: 'assistant' } });
    expect(stored.map((t) => t.content).sort()).toEqual(
      [0, 1, 2, 3, 4, 5, 6, 8, 9].map((i) => `reply ${i}`).sort(),
    );
  });

  it('does not read back the turns it wrote: the next turn’s statement sends no context, which is still right', async () => {
    const reply = (sessionId: string, content: string, status: 'complete' | 'error' = 'complete') =>
      sessions.addTurn(sessionId, {
        role: 'assistant',
        content,
        status,
        createdAt: new Date(Date.now() + 1),
      });
    const first = await start('cached', 'one');
    expect(begunRows[0]!.context).toBe('[]'); // unknown to this process: read
    await reply(first.session.id, 'One!');
    const second = await start('cached', 'two');
    expect(begunRows[0]!.context).toBeNull(); // the cached turns are the database's
    expect(second.context).toEqual([
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'One!' },
    ]);
    // a failed reply is no part of the context, cached or not
    await reply(second.session.id, 'failed', 'error');
    const third = await start('cached', 'three');
    expect(begunRows[0]!.context).toBeNull();
    expect(third.context.map((t) => t.content)).toEqual(['one', 'One!', 'two']);
  });

  it('reads the turns again when another instance wrote to the session, or the session was cleared', async () => {
    const other = createSessionRepository(backend.db, backend.statements); // a second gateway process
    const mine = await start('shared', 'from me');
    await other.begin({
      channel: 'web',
      owner: '',
      externalId: 'shared',
      message: 'from the other',
      createdAt: new Date(),
    });
    const next = await start('shared', 'me again');
    expect(begunRows[0]!.context).not.toBeNull();
    expect(next.context.map((t) => t.content)).toEqual(['from me', 'from the other']);

    await other.clear({ channel: 'web', owner: '', externalId: 'shared' });
    const afterClear = await start('shared', 'fresh');
    expect(afterClear.session.id).toBe(mine.session.id);
    expect(afterClear.context).toEqual([]);

    // a session swept and made anew under the same id starts empty too
    await backend.db.chatSession.delete({ where: { id: mine.session.id } });
    const remade = await start('shared', 'new');
    expect(remade.session.id).not.toBe(mine.session.id);
    expect(remade.context).toEqual([]);
  });

  it('stores a reply or tool result holding U+0000 with U+FFFD in its place, instead of failing', async () => {
    const { session } = await start('nul', 'hi');
    await sessions.addTurn(session.id, {
      role: 'assistant',
      content: 'a\u0000b',
      status: 'error',
      error: 'x\u0000y',
      toolCalls: [{ name: 'tool', result: 'p\u0000q' }],
    });
    const turn = await backend.db.turn.findFirstOrThrow({
      where: { sessionId: session.id, role: 'assistant' },
    });
    expect(turn).toMatchObject({
      content: 'a\uFFFDb',
      error: 'x\uFFFDy',
      toolCalls: [{ name: 'tool', result: 'p\uFFFDq' }],
    });
  });
});
