import { parseDataKey, resolveDataKey } from '@pa/http-kit';

/** GATEWAY_SECRET_KEY's value: 32 bytes written as 64 hex characters or as base64. */
export function parseSecretKey(value: string): Buffer {
  return parseDataKey(value, 'GATEWAY_SECRET_KEY');
}

/**
 * GATEWAY_SECRET_KEY when set. Otherwise a key generated once and kept (mode 0600) in the data directory, so that
 * `npm start` works with no setup; `generated` tells the caller to warn that production should set the variable.
 */
export function resolveSecretKey(configured: string | undefined, dataDir: string) {
  return resolveDataKey(configured, dataDir, { name: 'GATEWAY_SECRET_KEY', file: 'gateway-secret.key' });
}
