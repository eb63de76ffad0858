import { parseArgs } from 'node:util';
import { ConfigError } from '@pa/http-kit';
import { loadConfig } from '../config.ts';
import { createTenantAdminService } from '../features/tenants/tenant-admin-service.ts';
import { systemClock } from '../lib/clock.ts';
import { AppError } from '@pa/http-kit';
import type { CliDatabase } from './cli-database.ts';
import { webhookAdmin } from './webhook-admin.ts';
import type { Command, OptionName, OptionValues } from './command.ts';
import { findCommand, usage } from './commands.ts';
import { UsageError } from './usage-error.ts';

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: NodeJS.ProcessEnv;
}

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

// Every option any command takes; which command accepts which is checked after parsing, so that a
// misplaced option is a usage error that names the command.
const OPTIONS = {
  slug: { type: 'string' },
  name: { type: 'string' },
  tenant: { type: 'string' },
  flag: { type: 'string' },
  on: { type: 'boolean' },
  off: { type: 'boolean' },
  scopes: { type: 'string' },
  label: { type: 'string' },
  id: { type: 'string' },
  email: { type: 'string' },
  address: { type: 'string' },
  url: { type: 'string' },
  status: { type: 'string' },
  key: { type: 'string' },
  property: { type: 'string' },
  kind: { type: 'string' },
  title: { type: 'string' },
  body: { type: 'string' },
  file: { type: 'string' },
  deleted: { type: 'boolean' },
  limit: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const parse = (argv: string[]) =>
  parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });

function commandLine(c: Command): string {
  return `npm run platform -- ${c.name}${c.synopsis ? ` ${c.synopsis}` : ''}`;
}

/** Runs one operator command and returns the process exit code; never throws. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const wantsJson = argv.includes('--json');
  const fail = (code: number, slug: string, message: string, hint?: string) => {
    io.stderr(`error: ${message}${hint ? `\n\n${hint}` : ''}`);
    if (wantsJson) io.stdout(JSON.stringify({ error: { code: slug, message } }));
    return code;
  };
  const usageError = (message: string, command?: Command) =>
    fail(EXIT_USAGE, 'usage', message, command ? `Usage: ${commandLine(command)}` : usage());

  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (err) {
    return usageError(err instanceof Error ? err.message : String(err));
  }
  const { values, positionals } = parsed;
  if (values.help || positionals[0] === 'help') {
    io.stdout(usage());
    return EXIT_OK;
  }
  if (positionals.length === 0) return usageError('No command given.');
  const command = findCommand(positionals[0], positionals[1]);
  if (!command) return usageError(`Unknown command "${positionals.slice(0, 2).join(' ')}".`);
  const extra = command.argument ? 3 : 2;
  if (positionals.length > extra) return usageError(`Unexpected argument "${positionals[extra]}".`, command);

  const opts: OptionValues = {};
  if (command.argument && positionals[2] !== undefined) opts[command.argument] = positionals[2];
  for (const [name, value] of Object.entries(values)) {
    if (name === 'json' || name === 'help' || value === undefined) continue;
    const option = name as OptionName;
    if (!command.required.includes(option) && !command.optional.includes(option)) {
      return usageError(`"${command.name}" does not take --${name}.`, command);
    }
    opts[option] = value;
  }
  const absent = command.required.filter((o) => opts[o] === undefined);
  if (absent.length) return usageError(`Missing ${absent.map((o) => `--${o}`).join(', ')}.`, command);
  try {
    command.check?.(opts);
  } catch (err) {
    if (err instanceof UsageError) return usageError(err.message, command);
    return fail(EXIT_FAILED, 'failed', err instanceof Error ? err.message : String(err));
  }

  let database: CliDatabase | undefined;
  try {
    const config = loadConfig(io.env);
    // Loaded only for commands that reach the database, so that help and usage errors answer at once.
    const { openPlatformDatabase } = await import('./cli-database.ts');
    database = await openPlatformDatabase(config);
    const { db } = database;
    const out = await command.run(
      {
        admin: createTenantAdminService({ db }),
        db,
        clock: systemClock,
        webhooks: () => webhookAdmin(config, db),
      },
      opts,
    );
    io.stdout(wantsJson ? JSON.stringify(out.json) : out.text);
    if (out.notice) io.stderr(out.notice);
    return EXIT_OK;
  } catch (err) {
    if (err instanceof UsageError) return usageError(err.message, command);
    // A value the service rejects (a malformed slug, an unknown scope) is still a bad argument.
    if (err instanceof AppError && err.code === 'validation-failed') {
      return fail(EXIT_USAGE, err.code, err.message, `Usage: ${commandLine(command)}`);
    }
    if (err instanceof AppError) return fail(EXIT_FAILED, err.code, err.message);
    if (err instanceof ConfigError) return fail(EXIT_FAILED, 'invalid-configuration', err.message);
    // Operators get the reason, not a stack trace: a database that cannot be reached or a data directory in
    // use by another process says so in its message.
    const message = err instanceof Error ? err.message : String(err);
    return fail(EXIT_FAILED, 'failed', message);
  } finally {
    await database?.close().catch((err: unknown) => {
      io.stderr(`warning: could not close the database cleanly: ${err instanceof Error ? err.message : err}`);
    });
  }
}
