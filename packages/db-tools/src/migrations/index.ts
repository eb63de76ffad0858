// Offline Prisma migrations: applying migration folders (as `prisma migrate deploy` does), managing the
// databases they go to, and the WebAssembly schema engine for creating and checking migrations.
export * from './apply-migrations.ts';
export * from './postgres-admin.ts';
export * from './schema-engine.ts';
export * from './unreachable.ts';
