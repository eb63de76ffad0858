import type { TenantAdminService } from '../features/tenants/tenant-admin-service.ts';
import type { WebhookAdminService } from '../features/webhooks/webhook-admin-service.ts';
import type { Clock } from '../lib/clock.ts';
import type { Db } from '../lib/db.ts';

// What an operator command is (commands.ts, webhook-commands.ts) and what run-cli.ts gives it and prints of it.

export type OptionName =
  | 'slug'
  | 'name'
  | 'tenant'
  | 'flag'
  | 'on'
  | 'off'
  | 'scopes'
  | 'label'
  | 'id'
  | 'email'
  | 'address'
  | 'url'
  | 'status'
  | 'key'
  | 'property'
  | 'kind'
  | 'title'
  | 'body'
  | 'file'
  | 'deleted'
  | 'dir'
  | 'limit';
export type OptionValues = Partial<Record<OptionName, string | boolean>>;

export interface CommandContext {
  admin: TenantAdminService;
  db: Db;
  clock: Clock;
  /** built on first use: it resolves the secret key (PLATFORM_SECRET_KEY or the data directory's) */
  webhooks: () => WebhookAdminService;
}

export interface CommandOutput {
  json: Record<string, unknown>;
  text: string;
  /** said on stderr in every mode, so that `--json` output stays one object */
  notice?: string;
}

export interface Command {
  name: string;
  /** the options part of the usage line */
  synopsis: string;
  summary: string;
  required: OptionName[];
  optional: OptionName[];
  /** an option given as the argument after the command's name instead (`knowledge import <dir>`) */
  argument?: OptionName;
  /** checks that need no database, run before it is opened; throws UsageError */
  check?(opts: OptionValues): void;
  run(ctx: CommandContext, opts: OptionValues): Promise<CommandOutput>;
}
