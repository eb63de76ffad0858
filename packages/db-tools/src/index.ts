// Database tooling shared by both apps: offline migrations (no native Prisma engine needed),
// the embedded PGlite default, and test database helpers.
export * from './migrations.ts';
export * from './app-database.ts';
export * from './database.ts';
export * from './testing.ts';
