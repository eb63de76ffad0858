import type pg from 'pg';
import { Prisma, PrismaClient } from '../generated/prisma/client.ts';

export type Db = PrismaClient;
export type Tx = Prisma.TransactionClient;
export { Prisma };

type AdapterFactory = ConstructorParameters<typeof PrismaClient>[0] extends infer O
  ? O extends { adapter?: infer A }
    ? NonNullable<A>
    : never
  : never;

export function createPrismaClient(adapter: AdapterFactory): PrismaClient {
  return new PrismaClient({ adapter });
}

/**
 * A hot statement, sent by name. It must only select plain text/boolean/number columns (cast in SQL), so that
 * both ways of running it below return the same JavaScript values.
 */
export interface NamedStatement {
  name: string;
  text: string;
}

/** Runs named statements: the chat turn's few hot ones, which Prisma's query builder cannot batch. */
export type StatementRunner = <T>(statement: NamedStatement, values: unknown[]) => Promise<T[]>;

/**
 * On PostgreSQL, on the adapter's own pool as named prepared statements: each connection parses and plans a
 * statement once instead of on every call, about a third of the database's work for a chat turn. Elsewhere
 * (the embedded database, whose one session all clients share) through Prisma's raw queries, unprepared.
 */
export function statementRunner(db: Db, pool?: pg.Pool | null): StatementRunner {
  if (pool) {
    return async <T>(statement: NamedStatement, values: unknown[]) =>
      (await pool.query({ name: statement.name, text: statement.text, values })).rows as T[];
  }
  return <T>(statement: NamedStatement, values: unknown[]) =>
    db.$queryRawUnsafe<T[]>(statement.text, ...values);
}
