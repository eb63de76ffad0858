import { createLogger } from '@pa/http-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  OPEN_TURN_GRACE_MS,
  startOpenTurnSweeper,
  TURN_TIME_LIMIT_MS,
} from '../src/features/sessions/open-turn-sweeper.ts';
import { createOpenTurnsRepository } from '../src/features/sessions/open-turns-repository.ts';
import { createSessionRepository } from '../src/features/sessions/session-repository.ts';
import { parseSse } from './support/sse.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';

// A process killed mid-turn (kill -9) leaves the user's turn stored and its reply never written. The rows here
// are written through the real session repository exactly as such a process leaves them.

let g: TestGateway;
beforeAll(async () => {
  g = await startTestGateway({ redis: 'none' });
});
afterAll(async () => g?.close());

const MIN = 60_000;
const ago = (ms: number) => new Date(Date.now() - ms);

async function statuses(externalId: string): Promise<string[]> {
  const s = await g.db.chatSession.findUniqueOrThrow({
    where: { channel_owner_externalId: { channel: 'web', owner: '', externalId } },
  });
  const turns = await g.db.turn.findMany({ where: { sessionId: s.id }, orderBy: { seq: 'asc' } });
  return turns.map((t) => `${t.role}:${t.status}`);
}

describe('turns left open by a stopped process', () => {
  it('are closed as interrupted at start when older than the turn limit; live and answered ones are not', async () => {
    const sessions = createSessionRepository(g.db);
    const old = ago(TURN_TIME_LIMIT_MS + OPEN_TURN_GRACE_MS + MIN);
    const begin = (externalId: string, message: string, createdAt: Date, requestId?: string) =>
      sessions.begin({ channel: 'web', owner: '', externalId, message, createdAt, requestId });

    // killed mid-stream, long ago
    await begin('dead-1', 'which gas safety certificates have expired?', old, 'req-dead');
    // killed, then the user asked again (without request ids) and got an answer
    const retried = await begin('dead-2', 'first try', old);
    await begin('dead-2', 'second try', ago(MIN));
    await sessions.addTurn(retried.session.id, { role: 'assistant', content: 'answer', status: 'complete' });
    // answered long ago
    const answered = await begin('answered', 'hello', old, 'req-ok');
    await sessions.addTurn(answered.session.id, {
      role: 'assistant',
      content: 'Hello!',
      status: 'complete',
      requestId: 'req-ok',
    });
    // still being answered, maybe by another instance: within the turn limit
    await begin('live', 'slow question', ago(TURN_TIME_LIMIT_MS - MIN), 'req-live');

    const sweeper = startOpenTurnSweeper({
      openTurns: createOpenTurnsRepository(g.db),
      logger: createLogger('test', 'silent'),
    });
    await sweeper.done;
    sweeper.stop();

    expect(await statuses('dead-1')).toEqual(['user:interrupted']);
    expect(await statuses('dead-2')).toEqual(['user:interrupted', 'user:complete', 'assistant:complete']);
    expect(await statuses('answered')).toEqual(['user:complete', 'assistant:complete']);
    expect(await statuses('live')).toEqual(['user:complete']);

    // The browser reconnects with the dead turn's requestId: it is over (an empty replay), not "in progress".
    const started = Date.now();
    const res = await fetch(
      `${g.baseUrl}/api/chat/stream?${new URLSearchParams({
        message: 'which gas safety certificates have expired?',
        sessionId: 'dead-1',
        requestId: 'req-dead',
      })}`,
    );
    expect(res.status).toBe(200);
    const events = parseSse(await res.text());
    expect(events.at(-1)?.data).toBe('[DONE]');
    expect(events.some((e) => e.data?.includes('"error"'))).toBe(false);
    expect(Date.now() - started).toBeLessThan(2_000);

    // Once the live turn is as old as the limit allows, a later sweep closes it too.
    expect(await createOpenTurnsRepository(g.db).close({ before: new Date(Date.now() + MIN) })).toBe(1);
    expect(await statuses('live')).toEqual(['user:interrupted']);
  });
});
