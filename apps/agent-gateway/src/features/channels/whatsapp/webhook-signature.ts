import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

// Meta signs every webhook POST with the app secret: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw
// body>`. The raw bytes matter: Meta escapes non-ASCII characters and `/` in its JSON, so a body parsed and
// serialised again hashes differently. Comparisons are constant-time on equal-length digests, so that neither
// the signature nor the verify token can be guessed byte by byte from response times.

const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;

export function signatureIsValid(raw: Buffer, header: string | undefined, appSecret: string): boolean {
  const m = header ? SIGNATURE.exec(header.trim()) : null;
  if (!m) return false;
  const expected = createHmac('sha256', appSecret).update(raw).digest();
  return timingSafeEqual(expected, Buffer.from(m[1]!, 'hex'));
}

/** The verify token Meta echoes in `hub.verify_token`, against the SHA-256 stored when the channel was connected. */
export function verifyTokenMatches(given: string | undefined, storedHash: Uint8Array | null): boolean {
  if (given === undefined || !storedHash || storedHash.length !== 32) return false;
  return timingSafeEqual(createHash('sha256').update(given, 'utf8').digest(), Buffer.from(storedHash));
}
