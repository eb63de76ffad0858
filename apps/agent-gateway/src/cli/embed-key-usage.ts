import { EmbedKeyCreateRequest } from '@pa/contracts';

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
  embed-keys revoke --workspace ID --worker ID --id ID [--json]
                                          revoke an embed key: its panels stop answering within seconds`;

const BUDGET_OPTIONS = {
  'visitor-per-minute': 'visitorPerMinute',
  'ip-per-minute': 'ipPerMinute',
  'workspace-per-day': 'workspacePerDay',
} as const;

const UUID = /^[0-9a-f-]{36}$/i;

/** The create request the options describe, or the usage error that explains why there is none. */
export function embedKeyCreateRequest(
  values: Record<string, string | boolean | undefined>,
  origins: readonly string[],
): { request: EmbedKeyCreateRequest } | { error: string } {
  if (origins.length === 0) return { error: 'embed-keys create needs at least one --origin' };
  const budgets: Record<string, number> = {};
  for (const [option, field] of Object.entries(BUDGET_OPTIONS)) {
    const given = values[option];
    if (given === undefined) continue;
    const n = Number(given);
    if (typeof given !== 'string' || !/^\d+$/.test(given.trim()) || !Number.isSafeInteger(n))
      return { error: `--${option} must be a whole number` };
    budgets[field] = n;
  }
  const parsed = EmbedKeyCreateRequest.safeParse({
    origins,
    ...(typeof values.label === 'string' ? { label: values.label } : {}),
    ...(values['allow-proposals'] === true ? { allowProposals: true } : {}),
    ...(values['require-visitor-token'] === true ? { requireVisitorToken: true } : {}),
    ...(Object.keys(budgets).length > 0 ? { budgets } : {}),
  });
  if (parsed.success) return { request: parsed.data };
  const issue = parsed.error.issues[0]!;
  const [field, index] = issue.path;
  if (field === 'origins')
    return {
      error:
        typeof index === 'number'
          ? `--origin ${origins[index]}: ${issue.message}`
          : `--origin: ${issue.message}`,
    };
  if (field === 'budgets') {
    const option = Object.entries(BUDGET_OPTIONS).find(([, f]) => f === index)?.[0];
    return { error: `--${option ?? 'budgets'}: ${issue.message}` };
  }
  return { error: `--${String(field)}: ${issue.message}` };
}

/** The usage error of an embed-keys command's arguments, or null when they are fine. */
export function embedKeyUsageError(
  sub: string | undefined,
  values: Record<string, string | boolean | undefined>,
  origins: readonly string[],
): string | null {
  if (sub !== 'create' && sub !== 'list' && sub !== 'revoke') return 'embed-keys: create, list or revoke';
  if (!values.workspace || !values.worker) return `embed-keys ${sub} needs --workspace and --worker`;
  if (sub === 'revoke' && !UUID.test(String(values.id ?? ''))) return 'embed-keys revoke needs --id UUID';
  if (sub === 'create') {
    const made = embedKeyCreateRequest(values, origins);
    if ('error' in made) return made.error;
  }
  return null;
}
