import type pg from 'pg';

/**
 * A hot statement, sent by name. It must only select plain text/boolean/number columns (cast in SQL: bigint to
 * float8 or text, timestamps to epoch milliseconds), so that both ways of running it below return the same
 * JavaScript values.
 */
export interface NamedStatement {
  name: string;
  text: string;
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
      (await pool.query({ name: statement.name, text: statement.text, values })).rows as T[];
  }
  return <T>(statement: NamedStatement, values: unknown[]) =>
    db.$queryRawUnsafe<T[]>(statement.text, ...values);
}
