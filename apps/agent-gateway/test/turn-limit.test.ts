import { openAppDatabase } from '@pa/db-tools';
import { createTestDatabase } from '@pa/db-tools/testing';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MIGRATIONS_DIR } from '../src/config.ts';
import { createChatService } from '../src/features/chat/chat-service.ts';
import type { ChatProvider } from '../src/features/providers/provider.ts';
import { createProviderRegistry } from '../src/features/providers/provider-registry.ts';
import { createSessionRepository } from '../src/features/sessions/session-repository.ts';
import { createPrismaClient, type Db, statementRunner } from '../src/lib/db.ts';
import { scaled } from '@pa/http-kit/testing';

// A turn never runs past its time limit (open-turn-sweeper.ts relies on it): the service aborts the caller's
// controller itself, and the reply so far is stored as interrupted.

// answers one delta, then waits for its signal like a vendor that stopped sending
const stalled: ChatProvider = {
  name: 'stalled',
  model: 'stalled-1',
  async *stream({ signal }) {
    yield 'Thinking';
    await new Promise((_resolve, reject) => {
      const gone = () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' }));
      if (signal.aborted) gone();
      else signal.addEventListener('abort', gone, { once: true });
    });
  },
};

let db: Db;
let close: () => Promise<void>;
beforeAll(async () => {
  const database = await createTestDatabase({ prefix: 'gateway_turn_limit', migrationsDir: MIGRATIONS_DIR });
  const opened = await openAppDatabase({ name: 'gateway', url: database.url, poolMax: 2 });
  db = createPrismaClient(opened.adapter);
  close = async () => {
    await db.$disconnect();
    await opened.close();
    await database.drop();
  };
}, scaled(60_000));
afterAll(async () => close?.());

it('aborts a turn at the limit and stores what was said as interrupted', async () => {
  const chat = createChatService({
    sessions: createSessionRepository(db, statementRunner(db)),
    providers: createProviderRegistry([stalled], 'stalled'),
    logger: pino({ level: 'silent' }),
    turnLimitMs: 200,
  });
  const turn = await chat.prepare({ channel: 'web', owner: '', externalId: 'slow', message: 'hello' });
  const abort = new AbortController();
  const deltas: string[] = [];
  const started = Date.now();
  const result = await chat.run(turn, abort, (d) => deltas.push(d));
  expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  expect(result).toEqual({ reply: 'Thinking', status: 'interrupted' });
  expect(deltas).toEqual(['Thinking']);
  expect((abort.signal.reason as Error).name).toBe('TimeoutError');
  const stored = await db.turn.findFirstOrThrow({ where: { sessionId: turn.sessionId, role: 'assistant' } });
  expect(stored).toMatchObject({ content: 'Thinking', status: 'interrupted' });
});

it('a turn that ends in time leaves its controller alone', async () => {
  const quick: ChatProvider = {
    name: 'quick',
    model: 'quick-1',
    async *stream() {
      yield 'Done.';
    },
  };
  const chat = createChatService({
    sessions: createSessionRepository(db, statementRunner(db)),
    providers: createProviderRegistry([quick], 'quick'),
    logger: pino({ level: 'silent' }),
    turnLimitMs: 100,
  });
  const turn = await chat.prepare({ channel: 'web', owner: '', externalId: 'quick', message: 'hello' });
  const abort = new AbortController();
  expect(await chat.run(turn, abort, () => {})).toEqual({ reply: 'Done.', status: 'complete' });
  await new Promise((r) => setTimeout(r, 150)); // past the limit: its timer was cleared
  expect(abort.signal.aborted).toBe(false);
});
