// How long an app waits for PostgreSQL before it calls the database unavailable. Without these, a server that
// accepts connections but never answers (a hung host, a proxy in front of a dead one) held every request open for
// minutes: pg waits forever by default. With them a request fails within seconds, and the apps answer 503
// `database-unavailable` with Retry-After (http-kit's database-errors.ts recognises each of these errors).

/** 0 turns a timeout off, as in pg and PostgreSQL. */
export interface DatabaseTimeouts {
  /** Opening a connection, including PostgreSQL's start-up handshake, and waiting for a free one in the pool. */
  connectMs: number;
  /** Server side: PostgreSQL cancels a statement running longer (SQLSTATE 57014). */
  statementMs: number;
  /**
   * Client side: a query with no answer this long fails even when the server never answers at all. Above the
   * statement timeout, so that a server that is merely slow reports its own cancellation first.
   */
  queryMs: number;
}

/**
 * The defaults for an app's pool. The longest statement the apps run, the tenant-wide compliance rollup refresh,
 * takes about 1 s at 100,000 properties (docs/performance.md), well under the statement timeout.
 */
export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = {
  connectMs: 5_000,
  statementMs: 30_000,
  queryMs: 35_000,
};

/** The pg pool options for `timeouts` (pg sends `statement_timeout` as a start-up parameter of each connection). */
export function poolTimeoutOptions(timeouts: DatabaseTimeouts) {
  return {
    connectionTimeoutMillis: timeouts.connectMs,
    statement_timeout: timeouts.statementMs,
    query_timeout: timeouts.queryMs,
    // a peer that vanished without a word (a dropped network path) is noticed by the kernel, not only by a query
    keepAlive: true,
  };
}
