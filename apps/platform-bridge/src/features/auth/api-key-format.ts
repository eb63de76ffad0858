import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

// Key shape: <prefix>_ + 32 random base62 chars + 6-char base62 CRC32 of the random part. The checksum lets
// us reject typos and scanned garbage without touching the database; secret scanners can match the shape.
export type KeyKind = 'remote' | 'admin';
export const KEY_PREFIX: Record<KeyKind, string> = { remote: 'plat_', admin: 'padm_' };

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
// The non-secret part stored in clear to find the row: the kind's prefix and the first 8 random chars.
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

export function checksum(random: string): string {
  return base62(crc32(random), CHECKSUM_LENGTH);
}

export function generateKey(kind: KeyKind): string {
  let random = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) random += BASE62[randomInt(62)];
  return `${KEY_PREFIX[kind]}${random}${checksum(random)}`;
}

export type ParsedKey =
  | { ok: true; kind: KeyKind; lookupPrefix: string; hash: Buffer }
  | { ok: false; reason: 'malformed' | 'checksum' };

const SHAPE = /^(plat|padm)_([0-9A-Za-z]{32})([0-9A-Za-z]{6})$/;

export function parseKey(token: string): ParsedKey {
  const m = SHAPE.exec(token);
  if (!m) return { ok: false, reason: 'malformed' };
  const [, prefix, random, sum] = m as unknown as [string, string, string, string];
  if (checksum(random) !== sum) return { ok: false, reason: 'checksum' };
  return {
    ok: true,
    kind: prefix === 'plat' ? 'remote' : 'admin',
    lookupPrefix: `${prefix}_${random.slice(0, LOOKUP_RANDOM_CHARS)}`,
    hash: hashKey(token),
  };
}

export function hashKey(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

export function hashesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** What a person may see of a key after creation, e.g. `plat_AbCd1234…`. */
export function keyPreview(lookupPrefix: string): string {
  return `${lookupPrefix}…`;
}
