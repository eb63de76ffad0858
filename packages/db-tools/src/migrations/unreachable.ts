// Telling "PostgreSQL is not running" apart from real failures, so that commands can say how to start it.

export const START_HINT = 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start';

export function isUnreachable(err: unknown): boolean {
  const codes = ['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ETIMEDOUT', 'EAI_AGAIN', 'ENOENT'];
  const code = (e: unknown) => (typeof e === 'object' && e !== null && 'code' in e ? String(e.code) : '');
  // Node's happy-eyeballs connect reports an AggregateError whose own code may be missing.
  const inner = err instanceof AggregateError ? err.errors : [];
  // The schema engine reports it in words only.
  if (err instanceof Error && err.message.includes("Can't reach database server")) return true;
  return [err, ...inner].some((e) => codes.includes(code(e)));
}
