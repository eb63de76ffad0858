import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { PAIRING_ALPHABET, PAIRING_CODE_LENGTH, PAIRING_TTL_MINUTES } from '@pa/contracts';

// Pairing codes and webhook secrets: only their SHA-256 is stored, and a presented value is compared with a
// stored hash in constant time (hashes have equal lengths, which timingSafeEqual needs).

export function newPairingCode(): string {
  let code = '';
  for (let i = 0; i < PAIRING_CODE_LENGTH; i++) code += PAIRING_ALPHABET[randomInt(PAIRING_ALPHABET.length)];
  return code;
}

export function pairingExpiry(now: Date): Date {
  return new Date(now.getTime() + PAIRING_TTL_MINUTES * 60_000);
}

export function sha256(value: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(createHash('sha256').update(value, 'utf8').digest());
}

/** Whether `presented` hashes to `storedHash`, in time that does not depend on where they differ. */
export function matchesHash(presented: string | undefined, storedHash: Uint8Array | null): boolean {
  if (presented === undefined || !storedHash || storedHash.length !== 32) return false;
  return timingSafeEqual(sha256(presented), storedHash);
}

/** A webhook `secret_token`: Telegram allows 1–256 characters of A-Z a-z 0-9 _ -. */
export function newWebhookSecret(): string {
  return randomBytes(32).toString('base64url');
}

const CODE_CHARS = new RegExp(`^[${PAIRING_ALPHABET}]{${PAIRING_CODE_LENGTH}}$`);

/**
 * The code a message offers, if it offers one: `/start <code>` (what the deep link sends), `/start@bot <code>`,
 * or the code alone. Case and spaces are forgiven, as people type codes on phones. `attempt` tells a message that
 * tries to pair (a `/start`, or something code-shaped) from ordinary text.
 */
export function pairingAttempt(text: string): { attempt: boolean; code: string | null } {
  const trimmed = text.trim();
  const start = /^\/start(?:@\w+)?(?:\s+(.*))?$/is.exec(trimmed);
  const candidate = (start ? (start[1] ?? '') : trimmed).replace(/[\s-]/g, '').toUpperCase();
  if (CODE_CHARS.test(candidate)) return { attempt: true, code: candidate };
  return { attempt: Boolean(start) || /^[A-Za-z0-9]{8}$/.test(candidate), code: null };
}
