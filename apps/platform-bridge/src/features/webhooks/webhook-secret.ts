import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

// Endpoint secrets are needed in clear to sign, so they are encrypted (AES-256-GCM) rather than hashed: a copy of
// the database alone does not let anyone forge events. Stored as iv (12) | tag (16) | ciphertext.

/** A Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export function encryptSecret(key: Buffer, secret: string): Uint8Array<ArrayBuffer> {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return new Uint8Array(Buffer.concat([iv, cipher.getAuthTag(), body]));
}

export function decryptSecret(key: Buffer, stored: Uint8Array): string {
  const buf = Buffer.from(stored);
  const decipher = createDecipheriv('aes-256-gcm', key, buf.subarray(0, 12));
  decipher.setAuthTag(buf.subarray(12, 28));
  return Buffer.concat([decipher.update(buf.subarray(28)), decipher.final()]).toString('utf8');
}

/** PLATFORM_SECRET_KEY's value: 32 bytes written as 64 hex characters or as base64. */
export function parsePlatformSecretKey(value: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  if (key.length !== 32)
    throw new Error('PLATFORM_SECRET_KEY must be 32 bytes, as 64 hex characters or base64');
  return key;
}

/**
 * PLATFORM_SECRET_KEY when set. Otherwise a key generated once and kept (mode 0600) in the data directory, so that
 * `npm start` and the CLI work with no setup; `generated` tells the caller to warn that production should set it.
 */
export function resolvePlatformSecretKey(
  configured: string | undefined,
  dataDir: string,
): { key: Buffer; generated: boolean } {
  if (configured) return { key: parsePlatformSecretKey(configured), generated: false };
  const file = path.join(dataDir, 'platform-secret.key');
  try {
    return { key: parsePlatformSecretKey(readFileSync(file, 'utf8').trim()), generated: true };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  try {
    writeFileSync(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    // the app and a CLI command racing on a fresh data directory: the first one's key wins
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return { key: parsePlatformSecretKey(readFileSync(file, 'utf8').trim()), generated: true };
  }
  return { key, generated: true };
}
