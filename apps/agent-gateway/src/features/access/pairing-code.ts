import { randomInt } from 'node:crypto';
import { PAIRING_CODE, PAIRING_CODE_ALPHABET } from '@pa/contracts';
import { sha256 } from '@pa/http-kit';

// Pairing codes: 8 characters of an alphabet without look-alikes (31^8 ≈ 8.5·10^11), valid 10 minutes, one use.
// Stored as SHA-256 only: short-lived, and redeeming is rate-limited per IP.

export const PAIRING_CODE_LENGTH = 8;
export const PAIRING_CODE_TTL_MS = 10 * 60_000;

export function generatePairingCode(): string {
  let code = '';
  for (let i = 0; i < PAIRING_CODE_LENGTH; i++)
    code += PAIRING_CODE_ALPHABET[randomInt(PAIRING_CODE_ALPHABET.length)];
  return code;
}

/** What a person typed (`abcd-efgh`, `ABCD EFGH`) as the code it stands for, or null when it cannot be one. */
export function normalisePairingCode(input: string): string | null {
  const code = input.replace(/[\s-]+/g, '').toUpperCase();
  return PAIRING_CODE.test(code) ? code : null;
}

export function hashPairingCode(code: string): Buffer {
  return sha256(code);
}
