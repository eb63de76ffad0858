import { EmbedKeyCreateRequest, EmbedKeyUpdateRequest } from '@pa/contracts';
import type { z } from 'zod';

// The embed-keys commands' usage and argument checks (docs/embedding.md), apart from their work so that `--help`
// and usage errors load nothing else (cli/main.ts imports embed-key-commands.ts only when a command runs).

export const EMBED_KEY_USAGE = `  embed-keys create --workspace ID --worker ID --origin https://site [--origin …] [--label L]
             [--allow-proposals] [--require-visitor-token]
             [--visitor-per-minute N] [--ip-per-minute N] [--workspace-per-day N] [--json]
                                          an embed key for the worker's chat on the sites named (exact origins,
                                          up to 10); prints the key, the visitor secret and the HTML snippet once;
                                          --require-visitor-token: signed-in visitors only (no anonymous ones),
                                          always on with --allow-proposals;
                                          --workspace-per-day: one daily count for all the workspace's keys,
                                          held to the smallest of their limits
  embed-keys list --workspace ID --worker ID [--json]
                                          the worker's embed keys (never a key or a secret)
  embed-keys update --workspace ID --worker ID --id ID [--origin https://site …] [--label L]
             [--allow-proposals | --no-allow-proposals]
             [--require-visitor-token | --no-require-visitor-token]
             [--visitor-per-minute N] [--ip-per-minute N] [--workspace-per-day N] [--json]
                                          edit a live key's settings: what is not given stays; --origin (repeat
                                          it) replaces the whole list; the key, its secret and the snippet stay
                                          the same; a running gateway follows within 5 seconds
  embed-keys revoke --workspace ID --worker ID --id ID [--json]
                                          revoke an embed key: its panels stop answering within seconds`;

const BUDGET_OPTIONS = {
  'visitor-per-minute': 'visitorPerMinute',
  'ip-per-minute': 'ipPerMinute',
  'workspace-per-day': 'workspacePerDay',
} as const;

const UUID = /^[0-9a-f-]{36}$/i;

type Values = Record<string, string | boolean | undefined>;

/** The budget options given, as the request's budgets, or the usage error of the first that is not a number. */
function budgetsOf(values: Values): { budgets: Record<string, number> } | { error: string } {
  const budgets: Record<string, number> = {};
  for (const [option, field] of Object.entries(BUDGET_OPTIONS)) {
    const given = values[option];
    if (given === undefined) continue;
    const n = Number(given);
    if (typeof given !== 'string' || !/^\d+$/.test(given.trim()) || !Number.isSafeInteger(n))
      return { error: `--${option} must be a whole number` };
    budgets[field] = n;
  }
  return { budgets };
}

/** A refused request's first problem, named by the option that carries the field. */
function optionError(issue: z.core.$ZodIssue, origins: readonly string[], fallback: string): string {
  const [field, index] = issue.path;
  if (field === undefined) return fallback;
  if (field === 'origins')
    return typeof index === 'number'
      ? `--origin ${origins[index]}: ${issue.message}`
      : `--origin: ${issue.message}`;
  if (field === 'budgets') {
    const option = Object.entries(BUDGET_OPTIONS).find(([, f]) => f === index)?.[0];
    return `--${option ?? 'budgets'}: ${issue.message}`;
  }
  return `--${String(field)}: ${issue.message}`;
}

/** The create request the options describe, or the usage error that explains why there is none. */
export function embedKeyCreateRequest(
  values: Values,
  origins: readonly string[],
): { request: EmbedKeyCreateRequest } | { error: string } {
  if (origins.length === 0) return { error: 'embed-keys create needs at least one --origin' };
  const given = budgetsOf(values);
  if ('error' in given) return given;
  const parsed = EmbedKeyCreateRequest.safeParse({
    origins,
    ...(typeof values.label === 'string' ? { label: values.label } : {}),
    ...(values['allow-proposals'] === true ? { allowProposals: true } : {}),
    ...(values['require-visitor-token'] === true ? { requireVisitorToken: true } : {}),
    ...(Object.keys(given.budgets).length > 0 ? { budgets: given.budgets } : {}),
  });
  if (parsed.success) return { request: parsed.data };
  return { error: optionError(parsed.error.issues[0]!, origins, 'embed-keys create: bad arguments') };
}

/** A yes/no setting from its --flag and --no-flag: undefined when neither is given (it stays as it is). */
function flagOf(values: Values, flag: string): boolean | undefined | { error: string } {
  const on = values[flag] === true;
  const off = values[`no-${flag}`] === true;
  if (on && off) return { error: `--${flag} and --no-${flag} contradict each other` };
  return on ? true : off ? false : undefined;
}

/** The edit the options describe (only what they name), or the usage error that explains why there is none. */
export function embedKeyUpdateRequest(
  values: Values,
  origins: readonly string[],
): { request: EmbedKeyUpdateRequest } | { error: string } {
  const given = budgetsOf(values);
  if ('error' in given) return given;
  const allowProposals = flagOf(values, 'allow-proposals');
  const requireVisitorToken = flagOf(values, 'require-visitor-token');
  for (const flag of [allowProposals, requireVisitorToken]) if (typeof flag === 'object') return flag;
  const parsed = EmbedKeyUpdateRequest.safeParse({
    ...(origins.length > 0 ? { origins } : {}),
    ...(typeof values.label === 'string' ? { label: values.label } : {}),
    ...(allowProposals !== undefined ? { allowProposals } : {}),
    ...(requireVisitorToken !== undefined ? { requireVisitorToken } : {}),
    ...(Object.keys(given.budgets).length > 0 ? { budgets: given.budgets } : {}),
  });
  if (parsed.success) return { request: parsed.data };
  return {
    error: optionError(
      parsed.error.issues[0]!,
      origins,
      'embed-keys update needs a setting to change: --origin, --label, a flag or a budget',
    ),
  };
}

/** The usage error of an embed-keys command's arguments, or null when they are fine. */
export function embedKeyUsageError(
  sub: string | undefined,
  values: Values,
  origins: readonly string[],
): string | null {
  if (sub !== 'create' && sub !== 'list' && sub !== 'update' && sub !== 'revoke')
    return 'embed-keys: create, list, update or revoke';
  if (!values.workspace || !values.worker) return `embed-keys ${sub} needs --workspace and --worker`;
  if ((sub === 'revoke' || sub === 'update') && !UUID.test(String(values.id ?? '')))
    return `embed-keys ${sub} needs --id UUID`;
  if (sub === 'update') {
    const edit = embedKeyUpdateRequest(values, origins);
    if ('error' in edit) return edit.error;
  }
  if (sub === 'create') {
    const made = embedKeyCreateRequest(values, origins);
    if ('error' in made) return made.error;
  }
  return null;
}
