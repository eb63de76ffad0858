// PGlite is one PostgreSQL session shared by everything in the process. Its own locking
// (query()/exec() take a mutex per statement, transaction() holds it for the whole callback) keeps
// statements whole, but a BEGIN sent as a plain statement releases the mutex right away, so anyone
// else's statements would land inside that transaction. The helpers here hold PGlite's transaction
// mutex for as long as the session has a transaction open, which gives a caller connection-like
// semantics: nobody else runs between its BEGIN and its COMMIT.
import { type PGlite, parse, protocol } from '@electric-sql/pglite';

type BackendMessages = Awaited<ReturnType<PGlite['execProtocolStream']>>;

/** Resolves once the caller holds PGlite's transaction mutex; the returned function lets it go. */
export function holdTransactionMutex(db: PGlite): Promise<() => void> {
  return new Promise((acquired, failed) => {
    db._runExclusiveTransaction(() => new Promise<void>((release) => acquired(release))).catch(failed);
  });
}

// The same steps as PGlite's private #runQuery (parse, describe, bind, execute, sync), built on its
// public protocol API so they can run while we already hold the transaction mutex that query() wants.
async function runQuery<T>(db: PGlite, sql: string, params: readonly unknown[]): Promise<T[]> {
  const { serialize } = protocol;
  const messages: BackendMessages = [];
  // execProtocolStream, not execProtocol: PGlite 0.5 leaves the last execProtocolRawStream callback
  // (the socket server's) installed, and execProtocol would send its output to that socket client.
  const send = async (message: Uint8Array) => {
    const result = await db.execProtocolStream(message, { syncToFs: false });
    messages.push(...result);
    return result;
  };
  try {
    await send(serialize.parse({ text: sql }));
    const oids = parse.parseDescribeStatementResults(await send(serialize.describe({ type: 'S' })));
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = db.serializers[oids[i] ?? 0];
      return serializer ? serializer(value) : String(value);
    });
    await send(serialize.bind({ values }));
    await send(serialize.describe({ type: 'P' }));
    await send(serialize.execute({}));
  } finally {
    await send(serialize.sync());
  }
  if (!db.isInTransaction()) await db.syncToFs();
  return (parse.parseResults(messages, db.parsers)[0]?.rows ?? []) as T[];
}

async function runExec(db: PGlite, script: string): Promise<void> {
  const { serialize } = protocol;
  try {
    await db.execProtocolStream(serialize.query(script), { syncToFs: false });
  } finally {
    await db.execProtocolStream(serialize.sync(), { syncToFs: false });
  }
  if (!db.isInTransaction()) await db.syncToFs();
}

/**
 * A connection-like handle on an in-process PGlite: calls run in order, and from a BEGIN until the
 * matching COMMIT/ROLLBACK it owns the database (app queries and socket clients wait).
 */
export class PgliteSession {
  readonly #db: PGlite;
  #held: (() => void) | null = null;
  #tail: Promise<unknown> = Promise.resolve();

  constructor(db: PGlite) {
    this.#db = db;
  }

  query<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.#run(() => runQuery<T>(this.#db, sql, params));
  }

  exec(script: string): Promise<void> {
    return this.#run(() => runExec(this.#db, script));
  }

  /** Rolls back a transaction the caller left open, so that closing PGlite does not wait forever. */
  end(): Promise<void> {
    return this.#run(async () => {
      if (this.#db.isInTransaction()) await runExec(this.#db, 'ROLLBACK');
    });
  }

  #run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.#tail.then(async () => {
      if (!this.#held) this.#held = await holdTransactionMutex(this.#db);
      try {
        return await this.#db.runExclusive(fn);
      } finally {
        if (!this.#db.isInTransaction()) {
          const release = this.#held;
          this.#held = null;
          release?.();
        }
      }
    });
    this.#tail = next.catch(() => {});
    return next;
  }
}
