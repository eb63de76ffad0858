// Prisma 7 takes connection URLs from a config file instead of schema.prisma. Only the stock Prisma CLI
// reads this (where its native engine is available), e.g.
//   npx prisma migrate status --config prisma/gateway/prisma.config.ts
// This repo's own commands (npm run db:migrate / db:migrate:new / db:check) do not need it.
import { defineConfig } from 'prisma/config';

const url = process.env.GATEWAY_DATABASE_URL;

export default defineConfig({
  schema: 'schema.prisma',
  migrations: { path: 'migrations' },
  ...(url ? { datasource: { url } } : {}),
});
