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

// The hot statements (authentication, the portfolio page, a proposal's submission) run through the shared runner: named prepared
// statements on PostgreSQL's pool, Prisma's raw queries on the embedded database.
export {
  type NamedStatement,
  type StatementRunner,
  statementRunner,
  type StatementTransaction,
  statementTransaction,
} from '@pa/db-tools';
