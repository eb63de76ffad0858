import type pg from 'pg';

/**
 * A hot statement, sent by name. It must only select plain text/boolean/number columns (cast in SQL: bigint to
 * float8 or text, timestamps to epoch milliseconds), so that both ways of running it below return the same
 * JavaScript values.
 */
export interface NamedStatement {
  name: string;
  text: string;
  /**
   * 'array': each row is an array of its columns in the order selected, which `pg` decodes with less work than
   * an object per row (a page of 100 wide rows: about 13 % less CPU). Column names must then be unique.
   */
  rowMode?: 'array';
}

/** Runs named statements: an app's few hot ones, whose per-call cost through Prisma's raw queries matters. */
export type StatementRunner = <T>(statement: NamedStatement, values: unknown[]) => Promise<T[]>;

/** The one thing the fallback needs of a Prisma client. */
export interface RawQueryClient {
  $queryRawUnsafe<T>(query: string, ...values: unknown[]): Promise<T>;
}

/**
 * On PostgreSQL, on the adapter's own pool as named prepared statements: each connection parses and plans a
 * statement once instead of on every call, and the rows skip Prisma's result mapping. Elsewhere (the embedded
 * database, whose one session all clients share, so a statement name could collide) through Prisma's raw
 * queries, unprepared.
 */
export function statementRunner(db: RawQueryClient, pool?: pg.Pool | null): StatementRunner {
  if (pool) {
    return async <T>(statement: NamedStatement, values: unknown[]) =>
      (await pool.query({ ...statement, values })).rows as T[];
  }
  return async <T>(statement: NamedStatement, values: unknown[]) =>
    asRowMode<T>(statement, await db.$queryRawUnsafe<object[]>(statement.text, ...values));
}

// Prisma's raw rows are objects whose keys follow the selected columns' order.
const asRowMode = <T>(statement: NamedStatement, rows: object[]) =>
  (statement.rowMode === 'array' ? rows.map((row) => Object.values(row)) : rows) as T[];

/** Runs `work` in one transaction; the statements it sends through `run` follow StatementRunner's rules. */
export type StatementTransaction = <R>(work: (run: StatementRunner) => Promise<R>) => Promise<R>;

/** The one thing the fallback needs of a Prisma client for transactions. */
export interface RawTransactionClient {
  $transaction<R>(
    fn: (tx: RawQueryClient) => Promise<R>,
    options?: { maxWait?: number; timeout?: number },
  ): Promise<R>;
}

/**
 * A hot path that writes in one transaction, as named statements: on PostgreSQL, BEGIN … COMMIT on one connection
 * of the adapter's pool (ROLLBACK when `work` throws); on the embedded database, Prisma's interactive transaction
 * with its raw queries. Prisma's transaction costs about a millisecond of CPU more per transaction, and each of its
 * raw queries a few tenths more than a prepared statement.
 */
export function statementTransaction(db: RawTransactionClient, pool?: pg.Pool | null): StatementTransaction {
  if (pool) {
    return async <R>(work: (run: StatementRunner) => Promise<R>) => {
      const client = await pool.connect();
      let broken: unknown;
      try {
        await client.query('BEGIN');
        const result = await work(
          async <T>(statement: NamedStatement, values: unknown[]) =>
            (await client.query({ ...statement, values })).rows as T[],
        );
        await client.query('COMMIT');
        return result;
      } catch (err) {
        // a connection that cannot even roll back is not handed to the next request
        await client.query('ROLLBACK').catch((rollbackErr: unknown) => (broken = rollbackErr));
        throw err;
      } finally {
        client.release(broken instanceof Error ? broken : undefined);
      }
    };
  }
  return <R>(work: (run: StatementRunner) => Promise<R>) =>
    db.$transaction(
      (tx) =>
        work(async <T>(statement: NamedStatement, values: unknown[]) =>
          asRowMode<T>(statement, await tx.$queryRawUnsafe<object[]>(statement.text, ...values)),
        ),
      // waiting for the one embedded session is normal under load
      { maxWait: 10_000, timeout: 10_000 },
    );
}
