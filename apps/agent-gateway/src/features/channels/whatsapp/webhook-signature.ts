import { createHmac, timingSafeEqual } from 'node:crypto';

// Meta signs every webhook POST with the app secret: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw
// body>`. The raw bytes matter: Meta escapes non-ASCII characters and `/` in its JSON, so a body parsed and
// serialised again hashes differently. The comparison is constant-time on two 32-byte digests, so the signature
// cannot be guessed byte by byte from response times.

const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;

export function signatureIsValid(raw: Buffer, header: string | undefined, appSecret: string): boolean {
  const m = header ? SIGNATURE.exec(header.trim()) : null;
  if (!m) return false;
  const expected = createHmac('sha256', appSecret).update(raw).digest();
  return timingSafeEqual(expected, Buffer.from(m[1]!, 'hex'));
}
