import { generateSecretToken, hashesEqual, parseSecretToken, sha256, tokenChecksum } from '@pa/http-kit';

// Key shape: <prefix>_ + 32 random base62 chars + 6-char base62 CRC32 of the random part (@pa/http-kit's
// secret-token, shared with the gateway's device tokens). The checksum lets us reject typos and scanned garbage
// without touching the database; secret scanners can match the shape.
export type KeyKind = 'remote' | 'admin';
export const KEY_PREFIX: Record<KeyKind, string> = { remote: 'plat_', admin: 'padm_' };

export const checksum = tokenChecksum;
export { hashesEqual };

export function generateKey(kind: KeyKind): string {
  return generateSecretToken(KEY_PREFIX[kind].slice(0, -1));
}

export type ParsedKey =
  | { ok: true; kind: KeyKind; lookupPrefix: string; hash: Buffer }
  | { ok: false; reason: 'malformed' | 'checksum' };

export function parseKey(token: string): ParsedKey {
  const parsed = parseSecretToken(token, ['plat', 'padm']);
  if (!parsed.ok) return parsed;
  return {
    ok: true,
    kind: parsed.prefix === 'plat' ? 'remote' : 'admin',
    lookupPrefix: parsed.lookupPrefix,
    hash: parsed.hash,
  };
}

export function hashKey(token: string): Buffer {
  return sha256(token);
}

/** What a person may see of a key after creation, e.g. `plat_AbCd1234…`. */
export function keyPreview(lookupPrefix: string): string {
  return `${lookupPrefix}…`;
}
