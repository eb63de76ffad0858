import path from 'node:path';
import { parseArgs } from 'node:util';
import { SessionId } from '@pa/contracts';

const USAGE = `usage: npm run gateway -- <command>

  chat [--session ID] [--provider NAME]   interactive chat in the terminal (works with WEB_ENABLED=false)
  recall --session ID [--channel cli|web] [--limit N] [--json]
                                          show a session's stored turns`;

function usage(message?: string): never {
  if (message) console.error(message);
  console.error(USAGE);
  process.exit(2);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const command = argv[0];
  if (!command || command === '--help' || command === 'help') {
    if (!command) usage();
    console.log(USAGE);
    return;
  }
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv.slice(1),
      options: {
        session: { type: 'string' },
        provider: { type: 'string' },
        channel: { type: 'string' },
        limit: { type: 'string' },
        json: { type: 'boolean' },
      },
      strict: true,
    }));
  } catch (err) {
    usage((err as Error).message);
  }
  if (command !== 'chat' && command !== 'recall') usage(`unknown command "${command}"`);
  const session = values.session as string | undefined;
  if (session !== undefined && !SessionId.safeParse(session).success)
    usage('--session: 1–128 characters of A–Z a–z 0–9 . _ : -');
  if (command === 'recall' && !session) usage('recall needs --session');
  const channel = (values.channel as string | undefined) ?? 'cli';
  if (channel !== 'cli' && channel !== 'web') usage('--channel must be cli or web');
  const limit = values.limit === undefined ? 20 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) usage('--limit must be 1–1000');

  // Loaded only now, so that usage errors and --help answer at once.
  const { applyMigrations, ensureDatabase, openCliDatabase } = await import('@pa/db-tools');
  const { createLogger, loadOrExit } = await import('@pa/http-kit');
  const { loadConfig, MIGRATIONS_DIR } = await import('../config.ts');
  const { createChatService, newExternalSessionId } = await import('../features/chat/chat-service.ts');
  const { providersFromConfig } = await import('../features/providers/provider-registry.ts');
  const { createSessionRepository } = await import('../features/sessions/session-repository.ts');
  const { createPrismaClient } = await import('../lib/db.ts');
  const { formatTurns, runChatRepl } = await import('./chat-repl.ts');

  const config = loadOrExit(loadConfig);
  if (config.GATEWAY_DATABASE_URL) await ensureDatabase(config.GATEWAY_DATABASE_URL);
  // While the app runs on the embedded database, this goes through its socket; otherwise it opens it.
  const opened = await openCliDatabase({
    name: 'gateway',
    url: config.GATEWAY_DATABASE_URL,
    dataDir: path.join(config.GATEWAY_DATA_DIR, 'gateway'),
  });
  try {
    if (opened.kind !== 'embedded-remote') await applyMigrations(opened.sql, MIGRATIONS_DIR);
    const db = createPrismaClient(opened.adapter);
    const sessions = createSessionRepository(db);
    const providers = providersFromConfig(config);
    try {
      if (command === 'recall') {
        const found = await sessions.find(channel, session!);
        const turns = found ? await sessions.history(found.id, limit) : [];
        if (values.json) console.log(JSON.stringify({ sessionId: session, channel, turns }));
        else console.log(formatTurns(turns));
        return;
      }
      const chat = createChatService({
        sessions,
        providers,
        logger: createLogger('agent-gateway-cli', 'silent'),
      });
      await runChatRepl({
        chat,
        sessions,
        providers,
        externalId: session ?? newExternalSessionId(),
        provider: values.provider as string | undefined,
        input: process.stdin,
        output: process.stdout,
      });
    } finally {
      await db.$disconnect();
    }
  } finally {
    await opened.close();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`error: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
