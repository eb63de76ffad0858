import path from 'node:path';
import { parseArgs } from 'node:util';
import { CreateWorkerRequest, SessionId } from '@pa/contracts';
import { isClosedPipe, quietOnClosedPipe } from '@pa/http-kit/closed-pipe';
import { ACCESS_USAGE, accessUsageError } from './access-usage.ts';
import { EMBED_KEY_USAGE, embedKeyUsageError } from './embed-key-usage.ts';
import { misplacedOption, OPTIONS } from './options.ts';
import { QUEUES_USAGE, queuesUsageError } from './queue-usage.ts';

const USAGE = `usage: npm run gateway -- <command>

  chat [--session ID] [--provider NAME] [--worker ID] [--workspace ID] [--json]
                                          interactive chat in the terminal (works with WEB_ENABLED=false);
                                          talks to the worker (looked up in --workspace, else in the default
                                          worker's workspace), else the default one, with its platform tools.
                                          One message per line of stdin (a prompt only when it is a terminal);
                                          --json prints one JSON object per reply (and per /command)
  recall --session ID [--channel cli|web|telegram] [--limit N] [--json [--tools]]
                                          show a session's stored turns (every channel is searched unless
                                          --channel names one; --tools adds the tool calls' raw results)
  workspaces create --name N [--json]     create a workspace (prints its UUID, for X-Workspace-Id)
  workspaces list [--json]
  workers list [--workspace ID] [--json]  list workers (of one workspace, or all)
  workers create --workspace ID --name N [--template property-manager] [--json]
                                          create a worker, as POST /api/assistant/workers does
  summary runs --worker ID [--limit N] [--json]
                                          a worker's daily-summary runs, newest first: when, status, channel,
                                          attempts and why one failed or was skipped (--json adds the briefings)
${ACCESS_USAGE}
${EMBED_KEY_USAGE}
${QUEUES_USAGE}

Every command takes -h/--help; an option a command does not take is an error (exit 2).`;

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
  const accessCommand = command === 'pairing' || command === 'devices';
  const embedCommand = command === 'embed-keys';
  const queuesCommand = command === 'queues';
  const admin =
    command === 'workspaces' ||
    command === 'workers' ||
    command === 'summary' ||
    accessCommand ||
    embedCommand ||
    queuesCommand;
  // `queues` alone, or followed by its options, is `queues list`
  const impliedList = queuesCommand && (argv[1] === undefined || argv[1].startsWith('-'));
  const sub = impliedList ? 'list' : admin ? argv[1] : undefined;
  let values: Record<string, string | boolean | undefined>;
  // the one option given several times (embed-keys create --origin …), kept apart from the single-valued ones
  let origins: string[];
  try {
    const { origin, ...single } = parseArgs({
      args: argv.slice(admin && !impliedList ? 2 : 1),
      options: OPTIONS,
      strict: true,
    }).values;
    values = single;
    origins = origin ?? [];
  } catch (err) {
    usage((err as Error).message);
  }
  if (values.help) {
    console.log(USAGE);
    return;
  }
  if (values.workspace !== undefined && !/^[0-9a-f-]{36}$/i.test(String(values.workspace)))
    usage('--workspace must be a UUID');
  if (admin) {
    if (command === 'workspaces' && sub !== 'create' && sub !== 'list') usage('workspaces: create or list');
    if (command === 'workers' && sub !== 'list' && sub !== 'create') usage('workers: list or create');
    if (command === 'summary' && sub !== 'runs') usage('summary: runs');
    const accessError = accessCommand ? accessUsageError(command, sub, values) : null;
    if (accessError) usage(accessError);
    const embedError = embedCommand ? embedKeyUsageError(sub, values, origins) : null;
    if (embedError) usage(embedError);
    const queuesError = queuesCommand ? queuesUsageError(sub, values) : null;
    if (queuesError) usage(queuesError);
    if (command === 'summary' && !values.worker) usage('summary runs needs --worker');
    if (command === 'workers' && sub === 'create') {
      const parsed = CreateWorkerRequest.safeParse({ name: values.name, template: values.template });
      if (!values.workspace || !parsed.success)
        usage('workers create needs --workspace and --name (1–100 characters); --template property-manager');
    }
    if (command === 'workspaces' && sub === 'create') {
      const name = values.name;
      if (typeof name !== 'string' || !name.trim() || name.length > 100)
        usage('workspaces create needs --name (1–100 characters)');
    }
  } else if (command !== 'chat' && command !== 'recall') usage(`unknown command "${command}"`);
  const misplaced = misplacedOption(admin ? `${command} ${sub}` : command, {
    ...values,
    origin: origins.length > 0 ? origins : undefined,
  });
  if (misplaced) usage(misplaced);
  const session = values.session as string | undefined;
  if (session !== undefined && !SessionId.safeParse(session).success)
    usage('--session: 1–128 characters of A–Z a–z 0–9 . _ : -');
  if (command === 'recall' && !session) usage('recall needs --session');
  if (values.worker !== undefined && !/^[0-9a-f-]{36}$/i.test(String(values.worker)))
    usage('--worker must be a UUID');
  const CHANNELS = ['cli', 'web', 'telegram'] as const;
  const channel = values.channel as (typeof CHANNELS)[number] | undefined;
  if (channel !== undefined && !CHANNELS.includes(channel)) usage('--channel must be cli, web or telegram');
  if (values.tools && (command !== 'recall' || !values.json)) usage('--tools goes with recall --json');
  const limit = values.limit === undefined ? 20 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) usage('--limit must be 1–1000');
  if (command === 'summary' && limit > 100) usage('summary runs: --limit must be 1–100');

  // Loaded only now, so that usage errors and --help answer at once.
  const { applyMigrations, ensureDatabase, openCliDatabase } = await import('@pa/db-tools');
  const { createLogger, loadOrExit } = await import('@pa/http-kit');
  const { loadConfig, MIGRATIONS_DIR, REPO_ROOT, withStartEnv } = await import('../config.ts');
  const { newExternalSessionId } = await import('../features/chat/chat-service.ts');
  const { providersFromConfig } = await import('../features/providers/provider-registry.ts');
  const { createPrismaClient, statementRunner } = await import('../lib/db.ts');
  const { formatTurns, runChatRepl } = await import('./chat-repl.ts');
  const { createPlatformClients } = await import('../clients/platform-clients.ts');
  const { composeGateway } = await import('../compose/gateway.ts');
  const { resolveSecretKey } = await import('../lib/secret-key.ts');

  const config = loadOrExit(() => loadConfig(withStartEnv()));
  if (queuesCommand) {
    // Redis only: the database (the running app's embedded one too) is left alone
    const { QUEUE_NAMES, runQueuesCommand } = await import('./queue-commands.ts');
    if (values.queue !== undefined && !QUEUE_NAMES.includes(String(values.queue)))
      usage(`--queue must be one of: ${QUEUE_NAMES.join(', ')}`);
    await writeOut(`${await runQueuesCommand(config, sub!, values, limit)}
`);
    return;
  }
  if (config.GATEWAY_DATABASE_URL) await ensureDatabase(config.GATEWAY_DATABASE_URL);
  // While the app runs on the embedded database, this goes through its socket; otherwise it opens it.
  const opened = await openCliDatabase({
    name: 'gateway',
    url: config.GATEWAY_DATABASE_URL,
    dataDir: path.resolve(REPO_ROOT, config.GATEWAY_DATA_DIR, 'gateway'),
  });
  try {
    if (opened.kind !== 'embedded-remote') await applyMigrations(opened.sql, MIGRATIONS_DIR);
    const db = createPrismaClient(opened.adapter);
    const providers = providersFromConfig(config);
    const { platform, smokeTest } = createPlatformClients(config);
    // the gateway's parts as the gateway builds them, without Redis or the summary's queue: the CLI is the operator
    const gateway = composeGateway({
      config,
      db,
      statements: statementRunner(db, opened.pool),
      logger: createLogger('agent-gateway-cli', 'silent'),
      providers,
      redis: null,
      smokeTest,
      platform,
      secretKey: resolveSecretKey(config.GATEWAY_SECRET_KEY, config.GATEWAY_DATA_DIR).key,
      summaryQueue: null,
    });
    const { repositories } = gateway;
    const { sessions, workers, workspaces } = repositories;
    try {
      if (admin) {
        const json = values.json === true;
        if (accessCommand) {
          const { runAccessCommand } = await import('./access-commands.ts');
          await writeOut(`${await runAccessCommand(repositories, config, command, sub, values)}\n`);
          return;
        }
        if (embedCommand) {
          const { runEmbedKeyCommand } = await import('./embed-key-commands.ts');
          await writeOut(`${await runEmbedKeyCommand(gateway, config, sub!, values, origins)}\n`);
          return;
        }
        if (command === 'summary') {
          const { toSummaryRun } = await import('../features/daily-summary/daily-summary-mapper.ts');
          const { formatSummaryRuns } = await import('./summary-runs.ts');
          const workerId = String(values.worker);
          if (!(await repositories.operatorWorkers.exists(workerId)))
            throw new Error(`no worker ${workerId}`);
          const runs = (await repositories.summaryRuns.list(workerId, limit)).map(toSummaryRun);
          await writeOut(`${json ? JSON.stringify({ workerId, runs }) : formatSummaryRuns(runs)}\n`);
          return;
        }
        if (command === 'workspaces' && sub === 'create') {
          const w = await workspaces.create(String(values.name).trim());
          const out = { id: w.id, name: w.name, createdAt: w.createdAt.toISOString() };
          console.log(json ? JSON.stringify(out) : `Created workspace ${out.name}: ${out.id}`);
        } else if (command === 'workspaces') {
          const rows = await workspaces.list();
          const out = rows.map((w) => ({ id: w.id, name: w.name, createdAt: w.createdAt.toISOString() }));
          console.log(
            json
              ? JSON.stringify({ workspaces: out })
              : out.map((w) => `${w.id}  ${w.name}`).join('\n') || '(none)',
          );
        } else if (sub === 'create') {
          const { existingWorkspace } = await import('../features/workspace/workspace-guard.ts');
          const workspaceId = await existingWorkspace(workspaces, String(values.workspace));
          const w = await gateway.workersService.create(workspaceId, {
            name: String(values.name).trim(),
            template: values.template as string | undefined,
          });
          console.log(json ? JSON.stringify(w) : `Created worker ${w.name}: ${w.id}`);
        } else {
          // Workers are read workspace by workspace (the oldest first), so that every query names one.
          const { bindings } = repositories;
          const scope = values.workspace
            ? [String(values.workspace)]
            : (await workspaces.list()).map((w) => w.id);
          const out = [];
          for (const workspaceId of scope) {
            const boundTo = new Map(
              (await bindings.listInWorkspace(workspaceId)).map((b) => [b.workerId, b.tenantSlug]),
            );
            for (const w of await workers.list(workspaceId)) {
              out.push({
                id: w.id,
                workspaceId: w.workspaceId,
                name: w.name,
                skillPacks: w.skillPacks,
                boundTo: boundTo.get(w.id) ?? null,
              });
            }
          }
          console.log(
            json
              ? JSON.stringify({ workers: out })
              : out
                  .map(
                    (w) =>
                      `${w.id}  ${w.name}  [${w.skillPacks.join(', ')}]  ${w.boundTo ? `bound to ${w.boundTo}` : 'not bound'}`,
                  )
                  .join('\n') || '(none)',
          );
        }
        return;
      }
      if (command === 'recall') {
        // A session id is unique per channel only: without --channel every channel is searched, and when
        // several hold it the most recently active one is shown (the others are named on stderr).
        const found = await sessions.findEverywhere(session!, channel);
        const shown = found[0];
        if (found.length > 1) {
          const others = found.slice(1).map((f) => f.channel);
          console.error(
            `session ${session} also exists on ${others.join(', ')}: showing ${shown!.channel}; pass --channel to choose`,
          );
        }
        const turns = shown ? await sessions.history(shown.id, limit) : [];
        if (values.json) {
          // The turns as the conversation had them; the tools' raw bridge answers only on request.
          const out = turns.map(({ toolCalls, ...t }) => (values.tools ? { ...t, toolCalls } : t));
          await writeOut(
            `${JSON.stringify({ sessionId: session, channel: shown?.channel ?? channel ?? null, turns: out })}\n`,
          );
        } else if (!shown) {
          await writeOut(
            `(no stored turns: no session "${session}" on ${channel ? `the ${channel} channel; try another --channel (${CHANNELS.filter((c) => c !== channel).join(', ')})` : `any channel (${CHANNELS.join(', ')})`})\n`,
          );
        } else await writeOut(`${formatTurns(turns)}\n`);
        return;
      }
      const { chat, chatHooks: hooks } = gateway;
      const workerId = values.worker as string | undefined;
      const workspaceId = values.workspace as string | undefined;
      // an unknown worker or workspace stops here, before the prompt
      if (workerId || workspaceId) await hooks.resolveWorker({ workerId, workspaceId });
      await runChatRepl({
        chat,
        sessions,
        providers,
        externalId: session ?? newExternalSessionId(),
        provider: values.provider as string | undefined,
        workerId,
        workspaceId,
        input: process.stdin,
        output: process.stdout,
        json: values.json === true,
        // a person at a terminal gets a prompt and rendered markdown; a pipe or a file gets neither
        interactive: process.stdin.isTTY === true,
        render:
          process.stdout.isTTY && values.json !== true
            ? (await import('./markdown.ts')).terminalRenderer(process.stdout.columns)
            : undefined,
      });
    } finally {
      await db.$disconnect();
    }
  } finally {
    await opened.close();
  }
}

/** Writes to stdout and resolves once it is handed to the OS (a pipe may take a while to drain). */
function writeOut(text: string): Promise<void> {
  return new Promise((resolve, reject) =>
    process.stdout.write(text, (err) => (err ? reject(err) : resolve())),
  );
}

// A reader that stops early (`… --json | head -c 100`) ends the command quietly with exit 0: its write errors are
// dropped, a write that awaited one ends main() with it, and a chat stops reading (chat-repl.ts).
quietOnClosedPipe();

// process.exit drops what stdout has not written yet (a pipe takes 64 KiB at a time): wait for it first.
main().then(
  () =>
    writeOut('').then(
      () => process.exit(0),
      () => process.exit(0), // stdout was closed by its reader
    ),
  (err: unknown) => {
    if (isClosedPipe(err)) process.exit(0);
    console.error(`error: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
