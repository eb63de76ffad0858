import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

// The shape of both apps' bearer secrets (the bridge's `plat_`/`padm_` API keys, the gateway's `gwt_` device
// tokens): <prefix>_ + 32 random base62 chars + a 6-char base62 CRC32 of the random part. The checksum lets a
// server reject typos and scanned garbage without touching its database, and secret scanners can match the shape.
// Stored as SHA-256 (the random part has ~190 bits: no salt or slow hash needed) beside a lookup prefix in clear.

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const TOKEN_RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
// The non-secret part stored in clear to find the row: the prefix and the first 8 random chars.
const LOOKUP_RANDOM_CHARS = 8;

function base62(n: number, width: number): string {
  let out = '';
  let v = n;
  while (v > 0) {
    out = BASE62[v % 62] + out;
    v = Math.floor(v / 62);
  }
  return out.padStart(width, '0');
}

/** The 6-character checksum of a token's random part. */
export function tokenChecksum(random: string): string {
  return base62(crc32(random), CHECKSUM_LENGTH);
}

/** A new token `<prefix>_<32 random base62><checksum>`; `prefix` without its underscore. */
export function generateSecretToken(prefix: string): string {
  let random = '';
  for (let i = 0; i < TOKEN_RANDOM_LENGTH; i++) random += BASE62[randomInt(62)];
  return `${prefix}_${random}${tokenChecksum(random)}`;
}

export type ParsedSecretToken =
  | { ok: true; prefix: string; lookupPrefix: string; hash: Buffer }
  | { ok: false; reason: 'malformed' | 'checksum' };

const SHAPE = /^([a-z]{2,8})_([0-9A-Za-z]{32})([0-9A-Za-z]{6})$/;

/** Checks the shape (one of `prefixes`) and the checksum; the hash is what the database stores. */
export function parseSecretToken(token: string, prefixes: readonly string[]): ParsedSecretToken {
  const m = SHAPE.exec(token);
  if (!m || !prefixes.includes(m[1]!)) return { ok: false, reason: 'malformed' };
  const [, prefix, random, sum] = m as unknown as [string, string, string, string];
  if (tokenChecksum(random) !== sum) return { ok: false, reason: 'checksum' };
  return {
    ok: true,
    prefix,
    lookupPrefix: `${prefix}_${random.slice(0, LOOKUP_RANDOM_CHARS)}`,
    hash: sha256(token),
  };
}

export function sha256(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Constant-time equality of two hashes (false when their lengths differ). */
export function hashesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Constant-time equality of two secrets of any length: their SHA-256 digests are compared. */
export function secretsEqual(a: string, b: string): boolean {
  return timingSafeEqual(sha256(a), sha256(b));
}
