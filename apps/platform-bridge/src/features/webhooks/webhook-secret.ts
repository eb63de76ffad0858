import { randomBytes } from 'node:crypto';
import { createKeyCipher, parseDataKey, resolveDataKey } from '@pa/http-kit';

// Endpoint secrets are needed in clear to sign, so they are encrypted (AES-256-GCM, with the cipher both apps
// share) rather than hashed: a copy of the database alone does not let anyone forge events.

/** A Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export function encryptSecret(key: Buffer, secret: string): Uint8Array<ArrayBuffer> {
  return createKeyCipher(key).encrypt(secret);
}

export function decryptSecret(key: Buffer, stored: Uint8Array): string {
  return createKeyCipher(key).decrypt(stored);
}

/** PLATFORM_SECRET_KEY's value: 32 bytes written as 64 hex characters or as base64. */
export function parsePlatformSecretKey(value: string): Buffer {
  return parseDataKey(value, 'PLATFORM_SECRET_KEY');
}

/**
 * PLATFORM_SECRET_KEY when set. Otherwise a key generated once and kept (mode 0600) in the data directory, so that
 * `npm start` and the CLI work with no setup; `generated` tells the caller to warn that production should set it.
 */
export function resolvePlatformSecretKey(configured: string | undefined, dataDir: string) {
  return resolveDataKey(configured, dataDir, { name: 'PLATFORM_SECRET_KEY', file: 'platform-secret.key' });
}
