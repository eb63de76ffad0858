import { describe, expect, it } from 'vitest';
import { groupCommit } from '../src/lib/group-commit.ts';

// The batching rules on their own, with a `run` whose statements finish when the test says so.
function harness(opts: { maxBatch?: number; maxInFlight?: number; keyed?: boolean; failOn?: string } = {}) {
  const batches: string[][] = [];
  const open: (() => void)[] = [];
  const add = groupCommit<string, string>({
    ...(opts.maxBatch ? { maxBatch: opts.maxBatch } : {}),
    ...(opts.maxInFlight ? { maxInFlight: opts.maxInFlight } : {}),
    ...(opts.keyed ? { key: (item: string) => item.split(':')[0]! } : {}),
    run: (items) => {
      batches.push([...items]);
      return new Promise((resolve, reject) => {
        open.push(() =>
          opts.failOn && items.length > 1 && items.includes(opts.failOn)
            ? reject(new Error('the batch failed'))
            : opts.failOn && items[0] === opts.failOn
              ? reject(new Error(`${opts.failOn} failed`))
              : resolve(items.map((i) => `done ${i}`)),
        );
      });
    },
  });
  /** finishes the oldest running statement and lets its callers and the next batch go */
  const finish = async () => {
    open.shift()!();
    await new Promise((r) => setImmediate(r));
  };
  return { add, batches, finish, running: () => open.length };
}

describe('group commit', () => {
  it('sends an item at once when nothing is running, and one result reaches each caller', async () => {
    const h = harness({ maxInFlight: 1 });
    const a = h.add('a');
    expect(h.batches).toEqual([['a']]);
    await h.finish();
    await expect(a).resolves.toBe('done a');
  });

  it('items arriving while a statement runs leave together in the next one, each with its own result', async () => {
    const h = harness({ maxInFlight: 1 });
    const a = h.add('a');
    const rest = ['b', 'c', 'd'].map((i) => h.add(i));
    expect(h.batches).toEqual([['a']]);
    await h.finish();
    expect(h.batches).toEqual([['a'], ['b', 'c', 'd']]);
    await h.finish();
    await expect(a).resolves.toBe('done a');
    await expect(Promise.all(rest)).resolves.toEqual(['done b', 'done c', 'done d']);
  });

  it('runs at most maxInFlight statements, each of at most maxBatch items', async () => {
    const h = harness({ maxInFlight: 2, maxBatch: 2 });
    const all = ['a', 'b', 'c', 'd', 'e', 'f'].map((i) => h.add(i));
    expect(h.batches).toEqual([['a'], ['b']]);
    expect(h.running()).toBe(2);
    await h.finish();
    expect(h.batches).toEqual([['a'], ['b'], ['c', 'd']]);
    expect(h.running()).toBe(2);
    await h.finish();
    expect(h.batches.at(-1)).toEqual(['e', 'f']);
    while (h.running()) await h.finish();
    expect(await Promise.all(all)).toEqual(['a', 'b', 'c', 'd', 'e', 'f'].map((i) => `done ${i}`));
  });

  it('never puts two items of one key in a batch, nor runs them at once, and keeps their order', async () => {
    const h = harness({ maxInFlight: 2, keyed: true });
    const all = ['s1:a', 's1:b', 's2:x', 's1:c', 's2:y'].map((i) => h.add(i));
    // s1:a runs; s1:b must wait for it, s2:x may use the second slot
    expect(h.batches).toEqual([['s1:a'], ['s2:x']]);
    await h.finish(); // s1:a done → s1:b may go; s2 is still running, so s2:y waits
    expect(h.batches.at(-1)).toEqual(['s1:b']);
    await h.finish(); // s2:x done → s2:y; s1:c waits behind s1:b
    expect(h.batches.at(-1)).toEqual(['s2:y']);
    await h.finish(); // s1:b done → s1:c
    expect(h.batches.at(-1)).toEqual(['s1:c']);
    while (h.running()) await h.finish();
    expect(h.batches.flat().filter((i) => i.startsWith('s1:'))).toEqual(['s1:a', 's1:b', 's1:c']);
    await expect(Promise.all(all)).resolves.toHaveLength(5);
  });

  it('when a batch fails, sends each item alone, so that only the bad one fails', async () => {
    const h = harness({ maxInFlight: 1, failOn: 'bad' });
    const first = h.add('first');
    const good1 = h.add('good1');
    // settled into a value at once, so that its rejection is never unhandled while the test drives the rest
    const bad = h.add('bad').then(
      () => 'resolved',
      (err: Error) => err.message,
    );
    const good2 = h.add('good2');
    await h.finish(); // first
    expect(h.batches.at(-1)).toEqual(['good1', 'bad', 'good2']);
    await h.finish(); // the batch fails → three statements of one item each
    expect(h.batches.slice(-3)).toEqual([['good1'], ['bad'], ['good2']]);
    while (h.running()) await h.finish();
    await expect(first).resolves.toBe('done first');
    await expect(good1).resolves.toBe('done good1');
    await expect(good2).resolves.toBe('done good2');
    await expect(bad).resolves.toBe('bad failed');
  });

  it('rejects when a statement returns fewer results than items', async () => {
    const add = groupCommit<string, string>({ run: async () => [] });
    await expect(add('a')).rejects.toThrow('0 results for 1 item');
  });
});
