// Group commit: the writes of concurrent requests share one SQL statement, so a busy gateway sends one
// statement per batch instead of one (or four) per chat turn. Each caller still waits for the statement that
// carries its own write to commit, so nothing is acknowledged before it is durable, and every instance still
// reads from and writes to the database directly (no cache to go stale between instances).
//
// Batching is "natural": a write goes out at once when fewer than `maxInFlight` statements are running, and
// otherwise waits for one to finish and leaves with everything that queued up behind it. An idle gateway
// therefore adds no delay, and a loaded one makes batches as large as its load.
//
// `run` must send ONE statement per call, which either happens as a whole or not at all. If a batch fails,
// each of its items is tried again on its own, so that one bad row fails only the request it belongs to.

export interface GroupCommitOptions<In, Out> {
  /** one statement for the whole batch; resolves to one result per item, in the items' order */
  run(items: readonly In[]): Promise<Out[]>;
  /**
   * Items with the same key never share a batch (one statement cannot upsert the same row twice) and never run
   * at the same time: a later one waits for the earlier one's statement to finish, so each sees what the one
   * before it wrote, and items of one key go in the order they came.
   */
  key?(item: In): string;
  /** the largest batch; default 64 */
  maxBatch?: number;
  /** statements of this kind running at once; default 2 */
  maxInFlight?: number;
}

interface Pending<In, Out> {
  item: In;
  resolve(out: Out): void;
  reject(err: unknown): void;
}

export function groupCommit<In, Out>(opts: GroupCommitOptions<In, Out>): (item: In) => Promise<Out> {
  const maxBatch = opts.maxBatch ?? 64;
  const maxInFlight = opts.maxInFlight ?? 2;
  let queue: Pending<In, Out>[] = [];
  let inFlight = 0;

  /** keys of the items in running statements */
  const running = new Set<string>();

  const take = (): Pending<In, Out>[] => {
    const batch: Pending<In, Out>[] = [];
    const rest: Pending<In, Out>[] = [];
    // keys taken into this batch or held back; once a key is held back its later items are too (order)
    const seen = new Set<string>();
    for (const p of queue) {
      const key = opts.key?.(p.item);
      if (batch.length >= maxBatch || (key !== undefined && (seen.has(key) || running.has(key)))) {
        rest.push(p);
      } else {
        batch.push(p);
      }
      if (key !== undefined) seen.add(key);
    }
    queue = rest;
    return batch;
  };

  const runOne = async (p: Pending<In, Out>): Promise<void> => {
    try {
      const outs = await opts.run([p.item]);
      if (outs.length !== 1) throw new Error(`group commit: ${outs.length} results for 1 item`);
      p.resolve(outs[0] as Out);
    } catch (err) {
      p.reject(err);
    }
  };

  const execute = async (batch: Pending<In, Out>[]): Promise<void> => {
    if (batch.length === 1) return runOne(batch[0]!);
    let results: Out[];
    try {
      results = await opts.run(batch.map((p) => p.item));
      if (results.length !== batch.length) {
        throw new Error(`group commit: ${results.length} results for ${batch.length} items`);
      }
    } catch {
      // The statement did nothing; find out which item it was by sending each alone.
      await Promise.all(batch.map(runOne));
      return;
    }
    batch.forEach((p, i) => p.resolve(results[i] as Out));
  };

  const pump = (): void => {
    while (inFlight < maxInFlight && queue.length > 0) {
      const batch = take();
      if (batch.length === 0) return; // everything queued waits for a key that is running
      const keys = opts.key ? batch.map((p) => opts.key!(p.item)) : [];
      for (const key of keys) running.add(key);
      inFlight++;
      void execute(batch).finally(() => {
        for (const key of keys) running.delete(key);
        inFlight--;
        pump();
      });
    }
  };

  return (item) =>
    new Promise<Out>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      pump();
    });
}
