import { ServiceUnavailable } from './errors.ts';

// A database that cannot be reached is an outage, not a bug: 503 `database-unavailable` with Retry-After, so that
// clients (and the gateway's bridge client) try again later. Recognised without importing Prisma or pg, from what
// their errors carry: Prisma's connection error codes, its driver adapter's error kinds, PostgreSQL's connection
// SQLSTATEs, Node's socket errors and pg's "Connection terminated".

/** Seconds a client is asked to wait before trying again during a database outage. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

// P1001 can't reach, P1002 timed out, P1008 operation timed out, P1017 server closed the connection,
// P2024 timed out fetching a connection from the pool
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
const ADAPTER_KINDS = new Set([
  'DatabaseNotReachable',
  'DatabaseDoesNotExist',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
]);
const NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'EAI_AGAIN',
]);
// class 08 connection exception, 57P01–57P03 shutdown / cannot connect now, 53300 too many connections, 57014 a
// statement cancelled (the apps cancel none themselves: it is the pool's statement timeout, db-tools' timeouts.ts)
const PG_STATE = /^(08[0-9A-Z]{3}|57P0[1-3]|53300|57014)$/;
// pg's and Prisma's own phrases (not generic ones: ioredis says "Connection is closed"): a connection ended or
// never made, the pool's client-side query timeout, and waiting too long for a free connection in the pool
const MESSAGE =
  /Connection terminated|Can't reach database server|Timed out fetching a new connection|Client has encountered a connection error and is not queryable|^Query read timeout$|^timeout exceeded when trying to connect$/;

function isOutage(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 6) return false;
  const e = err as {
    name?: unknown;
    code?: unknown;
    kind?: unknown;
    message?: unknown;
    cause?: unknown;
    meta?: { driverAdapterError?: unknown };
  };
  if (e.name === 'PrismaClientInitializationError') return true;
  if (
    typeof e.code === 'string' &&
    (PRISMA_CODES.has(e.code) || NODE_CODES.has(e.code) || PG_STATE.test(e.code))
  )
    return true;
  if (typeof e.kind === 'string' && ADAPTER_KINDS.has(e.kind)) return true;
  if (e.kind === 'postgres' && typeof e.code === 'string' && PG_STATE.test(e.code)) return true;
  if (typeof e.message === 'string' && MESSAGE.test(e.message)) return true;
  return isOutage(e.cause, depth + 1) || isOutage(e.meta?.driverAdapterError, depth + 1);
}

/** The error as a database outage (503), or undefined when it is something else. */
export function fromDatabase(err: unknown): ServiceUnavailable | undefined {
  if (!isOutage(err)) return undefined;
  return new ServiceUnavailable(
    'database-unavailable',
    'The database is unavailable for the moment; try again shortly.',
    DATABASE_RETRY_AFTER_SECONDS,
    { title: 'Database unavailable', cause: err },
  );
}

/**
 * A unique constraint refused the row (the caller retries with another value or answers 409): Prisma's P2002
 * from a model query, or a raw statement's P2010 whose driver adapter error is a UniqueConstraintViolation.
 */
export function isUniqueViolation(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown; meta?: { driverAdapterError?: { cause?: { kind?: unknown } } } };
  return e.code === 'P2002' || e.meta?.driverAdapterError?.cause?.kind === 'UniqueConstraintViolation';
}
