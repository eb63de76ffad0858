import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BRIDGE_BACKENDS, startTestBridge, type TestBridge } from './support/test-app.ts';

// Prisma's nested $transaction (a savepoint) on both databases the bridge runs on: the embedded one's adapter
// once had no savepoints, and a compliance approval, which nested one, answered 500 there alone (issue 30).

describe.each(BRIDGE_BACKENDS)('nested transactions on %s', (_name, backend) => {
  let t: TestBridge;
  beforeAll(async () => {
    t = await startTestBridge({ backend });
  });
  afterAll(async () => t?.close());

  it('a nested transaction that throws rolls back to its savepoint; one that returns keeps its rows', async () => {
    const kept = await t.db.$transaction(async (tx) => {
      await tx.$executeRaw`CREATE TEMP TABLE nest_probe (n int) ON COMMIT DROP`;
      await tx.$executeRaw`INSERT INTO nest_probe VALUES (1)`;
      await expect(
        tx.$transaction(async (inner) => {
          await inner.$executeRaw`INSERT INTO nest_probe VALUES (2)`;
          throw new Error('undo 2');
        }),
      ).rejects.toThrow('undo 2');
      await tx.$transaction((inner) => inner.$executeRaw`INSERT INTO nest_probe VALUES (3)`);
      return tx.$queryRaw<Array<{ n: number }>>`SELECT n FROM nest_probe ORDER BY n`;
    });
    expect(kept.map((r) => r.n)).toEqual([1, 3]);
  });
});
