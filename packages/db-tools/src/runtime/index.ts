// What an app needs at run time: its database opened (PostgreSQL by URL, else the embedded one), the
// Prisma adapter to build its client on, and pending migrations applied at start.
export { applyMigrations } from '../migrations/apply-migrations.ts';
export { ensureDatabase } from '../migrations/postgres-admin.ts';
export { openAndMigrate } from './open-and-migrate.ts';
export {
  DataDirInUseError,
  type OpenAppDatabaseOptions,
  type OpenCliDatabaseOptions,
  type OpenedDatabase,
  openAppDatabase,
  openCliDatabase,
  OWNER_FILE,
  type OwnerRecord,
  readOwner,
  type SqlSession,
} from './open-database.ts';
export {
  type NamedStatement,
  type RawQueryClient,
  type RawTransactionClient,
  type StatementRunner,
  statementRunner,
  type StatementTransaction,
  statementTransaction,
} from './statements.ts';
export { DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts } from './timeouts.ts';
