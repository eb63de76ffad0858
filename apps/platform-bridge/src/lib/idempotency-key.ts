import { createHash } from 'node:crypto';
import { IDEMPOTENCY_KEY_MAX } from '@pa/contracts';
import { ValidationFailed } from '@pa/http-kit';

// The `Idempotency-Key` request header (draft-ietf-httpapi-idempotency-key-header): an RFC 8941 sf-string, which
// clients send quoted or, as most do, bare. Both forms name the same key.

const HEADER_POINTER = '#/idempotency-key';
// visible ASCII and space: what an sf-string may hold; control characters never reach the database or the logs
const KEY_CHARS = /^[\x20-\x7e]+$/;

/** The key of the request's header, unquoted; 400 when it is missing or malformed. */
export function parseIdempotencyKey(header: string | undefined): string {
  if (header === undefined) {
    throw new ValidationFailed(
      [{ pointer: HEADER_POINTER, detail: 'is required: send a fresh key for each new proposal' }],
      'The Idempotency-Key header is required.',
      { code: 'idempotency-key-missing' },
    );
  }
  const key =
    header.length >= 2 && header.startsWith('"') && header.endsWith('"') ? header.slice(1, -1) : header;
  const problem =
    key.length === 0
      ? 'must not be empty'
      : key.length > IDEMPOTENCY_KEY_MAX
        ? `must be at most ${IDEMPOTENCY_KEY_MAX} characters`
        : !KEY_CHARS.test(key)
          ? 'must be visible ASCII characters'
          : undefined;
  if (problem) {
    throw new ValidationFailed(
      [{ pointer: HEADER_POINTER, detail: problem }],
      'The Idempotency-Key is malformed.',
    );
  }
  return key;
}

/**
 * Canonical JSON (RFC 8785, JCS) of a parsed JSON value: object keys sorted by UTF-16 code units, no whitespace,
 * numbers and strings as ECMAScript's JSON.stringify writes them, which is what JCS prescribes. Written here
 * because it is ten lines and the `canonicalize` package is not among the dependencies.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.keys(value)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

/** What tells two bodies sent with one key apart: SHA-256 of the body's canonical JSON. */
export function bodyFingerprint(body: unknown): Buffer {
  return createHash('sha256').update(canonicalJson(body)).digest();
}

/**
 * The advisory lock that marks a key in flight: a signed 64-bit number drawn from the tenant, endpoint and key.
 * A collision only makes two unrelated requests wait on each other's 409, never merges them.
 */
export function idempotencyLockId(tenantId: number, endpoint: string, key: string): bigint {
  return createHash('sha256').update(`${tenantId}\0${endpoint}\0${key}`).digest().readBigInt64BE(0);
}
