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

/**
 * The server answered but refused the login: a wrong or missing password (28P01), a role or pg_hba.conf entry
 * that does not allow it (28000), or pg's own refusal to start SCRAM without a password, which it reports in
 * words only. Then starting PostgreSQL is not the fix; the URL's credentials (or the server's trust) are.
 */
export function isAuthRefused(err: unknown): boolean {
  const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : '';
  if (code === '28P01' || code === '28000') return true;
  return err instanceof Error && /^SASL: .*password must be a/.test(err.message);
}

/** What to tell the user when the login is refused at `server` (already redacted). */
export function authHint(server: string): string {
  return (
    `PostgreSQL at ${server} refused the login. Set TEST_DATABASE_URL to a role that may create databases, e.g.\n` +
    `  TEST_DATABASE_URL=postgresql://postgres:PASSWORD@127.0.0.1:5432 npm test\n` +
    `or let local TCP connections in without a password (pg_hba.conf: host all postgres 127.0.0.1/32 trust).`
  );
}
