import { Prisma, PrismaClient } from '../generated/prisma/client.ts';

export type Db = PrismaClient;
export { Prisma };

type AdapterFactory = ConstructorParameters<typeof PrismaClient>[0] extends infer O
  ? O extends { adapter?: infer A }
    ? NonNullable<A>
    : never
  : never;

export function createPrismaClient(adapter: AdapterFactory): PrismaClient {
  return new PrismaClient({ adapter });
}
