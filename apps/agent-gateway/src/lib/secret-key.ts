import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** GATEWAY_SECRET_KEY's value: 32 bytes written as 64 hex characters or as base64. */
export function parseSecretKey(value: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  if (key.length !== 32)
    throw new Error('GATEWAY_SECRET_KEY must be 32 bytes, as 64 hex characters or base64');
  return key;
}

/**
 * GATEWAY_SECRET_KEY when set. Otherwise a key generated once and kept (mode 0600) in the data directory, so that
 * `npm start` works with no setup; `generated` tells the caller to warn that production should set the variable.
 */
export function resolveSecretKey(
  configured: string | undefined,
  dataDir: string,
): { key: Buffer; generated: boolean } {
  if (configured) return { key: parseSecretKey(configured), generated: false };
  const file = path.join(dataDir, 'gateway-secret.key');
  try {
    return { key: parseSecretKey(readFileSync(file, 'utf8').trim()), generated: true };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  try {
    writeFileSync(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    // the gateway and the worker process started together on one data directory: the first one's key wins
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return { key: parseSecretKey(readFileSync(file, 'utf8').trim()), generated: true };
  }
  return { key, generated: true };
}
