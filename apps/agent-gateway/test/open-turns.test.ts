import { randomUUID } from 'node:crypto';
import { createLogger } from '@pa/http-kit';
import { scaled, until } from '@pa/http-kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  OPEN_TURN_GRACE_MS,
  startOpenTurnSweeper,
  TURN_TIME_LIMIT_MS,
} from '../src/features/sessions/open-turn-sweeper.ts';
import { startInstanceLease } from '../src/features/sessions/instance-lease.ts';
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

// Issue 33, defect 5: a turn of a process that died is closed as soon as its lease runs out (seconds), not after
// the turn time limit (11 minutes); a process that takes over the same address closes them at once.
describe('instance leases', () => {
  const logger = createLogger('test', 'silent');
  const openTurns = () => createOpenTurnsRepository(g.db);
  const begin = (instanceId: string, externalId: string, requestId: string) =>
    createSessionRepository(g.db, undefined, instanceId).begin({
      channel: 'web',
      owner: '',
      externalId,
      message: 'which tenancies end this month?',
      createdAt: new Date(),
      requestId,
    });

  it("a live process closes a dead one's open turns once its lease runs out, and leaves a live one's alone", async () => {
    // a process that recorded its lease, began a turn, and was killed: nothing renews its lease again
    const dead = randomUUID();
    await openTurns().renew(dead);
    await begin(dead, 'lease-dead', 'req-lease-dead');
    // a live process in the middle of a turn, and another live one that only sweeps
    const liveId = randomUUID();
    // a short lease, stretched on a loaded machine so that a slow renewal is not taken for a death
    const leaseMs = scaled(1_500);
    const short = { openTurns: openTurns(), logger, renewMs: 100, leaseMs };
    const live = await startInstanceLease({ id: liveId, ...short });
    const other = await startInstanceLease({ id: randomUUID(), ...short });
    try {
      await begin(liveId, 'lease-live', 'req-lease-live');

      await until(
        "the dead process's turn is closed",
        async () => (await statuses('lease-dead'))[0] === 'user:interrupted',
        10_000,
      );
      expect(await g.db.gatewayInstance.findUnique({ where: { id: dead } })).toBeNull();
      // the live processes renew their leases: their turns stay open past a whole lease of sweeps
      await new Promise((resolve) => setTimeout(resolve, leaseMs + 500));
      expect(await statuses('lease-live')).toEqual(['user:complete']);
    } finally {
      await live.stop();
      await other.stop();
    }
  });

  it('a process that takes the address of a killed one closes its open turns at once, whatever its lease says', async () => {
    const killed = randomUUID();
    const repo = openTurns();
    await repo.renew(killed);
    await repo.claimName(killed, 'host-a 127.0.0.1:3000');
    await begin(killed, 'claim-killed', 'req-claim-killed');
    // a process elsewhere with a fresh lease and an open turn
    const elsewhere = randomUUID();
    await repo.renew(elsewhere);
    await repo.claimName(elsewhere, 'host-b 127.0.0.1:3000');
    await begin(elsewhere, 'claim-elsewhere', 'req-claim-elsewhere');

    const successor = await startInstanceLease({ id: randomUUID(), openTurns: repo, logger });
    try {
      await successor.claimName('host-a 127.0.0.1:3000');
      expect(await statuses('claim-killed')).toEqual(['user:interrupted']);
      expect(await statuses('claim-elsewhere')).toEqual(['user:complete']);
      expect(await g.db.gatewayInstance.findUnique({ where: { id: killed } })).toBeNull();
    } finally {
      await successor.stop();
      await repo.expire(elsewhere);
    }
  });

  it('a process that stops cleanly ends its lease at once', async () => {
    const id = randomUUID();
    const lease = await startInstanceLease({ id, openTurns: openTurns(), logger });
    await begin(id, 'stopped', 'req-stopped');
    await lease.stop();
    // the next sweep of any process closes what it left, without waiting for the lease to run out
    expect(await openTurns().takeOverExpired(60_000)).toBeGreaterThanOrEqual(1);
    expect(await statuses('stopped')).toEqual(['user:interrupted']);
  });
});
