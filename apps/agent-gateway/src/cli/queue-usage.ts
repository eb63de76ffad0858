// The queues commands' usage and argument checks (docs/operations.md, "Queues"), apart from their work so that
// `--help` and usage errors load nothing else (cli/main.ts imports queue-commands.ts only when a command runs).

export const QUEUES_USAGE = `  queues [list] [--json]                  each BullMQ queue's jobs: waiting, active, delayed, failed, completed,
                                          and whether it is paused (Redis only: works while the gateway runs)
  queues failed --queue NAME [--limit N] [--json]
                                          a queue's failed jobs, newest first: id, name, attempts, when, why
  queues retry --queue NAME (--job ID | --all-failed) [--json]
                                          move a failed job (or every failed job) back to waiting`;

/** The usage error of a queues command's arguments, or null when they are fine. */
export function queuesUsageError(
  sub: string | undefined,
  values: Record<string, string | boolean | undefined>,
): string | null {
  if (sub !== 'list' && sub !== 'failed' && sub !== 'retry') return 'queues: list, failed or retry';
  if (sub === 'list') return null;
  if (typeof values.queue !== 'string' || !values.queue) return `queues ${sub} needs --queue NAME`;
  if (sub === 'retry') {
    const job = values.job;
    if ((job === undefined) === (values['all-failed'] !== true))
      return 'queues retry needs --job ID or --all-failed (one of them)';
    if (job !== undefined && (typeof job !== 'string' || !/^[\x21-\x7e]{1,200}$/.test(job)))
      return '--job: a job id as `queues failed` prints it';
  }
  return null;
}
