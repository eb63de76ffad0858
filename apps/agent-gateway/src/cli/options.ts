// The gateway CLI's options, and which command takes which: one parse accepts all of them, then an option the
// command does not take is a usage error (exit 2) that names the command, rather than being silently ignored.

export const OPTIONS = {
  session: { type: 'string' },
  provider: { type: 'string' },
  channel: { type: 'string' },
  limit: { type: 'string' },
  json: { type: 'boolean' },
  tools: { type: 'boolean' },
  name: { type: 'string' },
  workspace: { type: 'string' },
  worker: { type: 'string' },
  template: { type: 'string' },
  scopes: { type: 'string' },
  label: { type: 'string' },
  id: { type: 'string' },
  // embed-keys create: --origin may be given several times
  origin: { type: 'string', multiple: true },
  'allow-proposals': { type: 'boolean' },
  'require-visitor-token': { type: 'boolean' },
  // embed-keys update: turning a setting off (node 20's parseArgs has no --no- negation of its own)
  'no-allow-proposals': { type: 'boolean' },
  'no-require-visitor-token': { type: 'boolean' },
  'visitor-per-minute': { type: 'string' },
  'ip-per-minute': { type: 'string' },
  'workspace-per-day': { type: 'string' },
  // queues failed / retry
  queue: { type: 'string' },
  job: { type: 'string' },
  'all-failed': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type OptionName = keyof typeof OPTIONS;

/** Per command (`command sub` for those with a sub-command): the options it takes besides --help. */
const TAKES: Record<string, readonly OptionName[]> = {
  chat: ['session', 'provider', 'worker', 'workspace', 'json'],
  recall: ['session', 'channel', 'limit', 'json', 'tools'],
  'workspaces create': ['name', 'json'],
  'workspaces list': ['json'],
  'workers list': ['workspace', 'json'],
  'workers create': ['workspace', 'name', 'template', 'json'],
  'summary runs': ['worker', 'limit', 'json'],
  'pairing create': ['workspace', 'scopes', 'label', 'json'],
  'devices list': ['json'],
  'devices revoke': ['id', 'json'],
  'queues list': ['json'],
  'queues failed': ['queue', 'limit', 'json'],
  'queues retry': ['queue', 'job', 'all-failed', 'json'],
  'embed-keys create': [
    'workspace',
    'worker',
    'origin',
    'label',
    'allow-proposals',
    'require-visitor-token',
    'visitor-per-minute',
    'ip-per-minute',
    'workspace-per-day',
    'json',
  ],
  'embed-keys update': [
    'workspace',
    'worker',
    'id',
    'origin',
    'label',
    'allow-proposals',
    'no-allow-proposals',
    'require-visitor-token',
    'no-require-visitor-token',
    'visitor-per-minute',
    'ip-per-minute',
    'workspace-per-day',
    'json',
  ],
  'embed-keys list': ['workspace', 'worker', 'json'],
  'embed-keys revoke': ['workspace', 'worker', 'id', 'json'],
};

/** The usage error for an option `command` does not take, or null; an unknown command is checked elsewhere. */
export function misplacedOption(command: string, values: Record<string, unknown>): string | null {
  const takes = TAKES[command];
  if (!takes) return null;
  const extra = Object.keys(values).find(
    (name) => name !== 'help' && values[name] !== undefined && !takes.includes(name as OptionName),
  );
  return extra ? `"${command}" does not take --${extra}` : null;
}
