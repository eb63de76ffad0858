import { generateSecretToken, parseSecretToken, type ParsedSecretToken } from '@pa/http-kit';

// A device's bearer token: `gwt_` + 32 base62 + a 6-character base62 CRC32 of the random part, the shape the
// bridge's API keys have (@pa/http-kit's secret-token). Stored as SHA-256 beside its lookup prefix.

const PREFIX = 'gwt';

export function generateDeviceToken(): string {
  return generateSecretToken(PREFIX);
}

/** Shape and checksum checked without the database; `hash` and `lookupPrefix` find and verify the row. */
export function parseDeviceToken(token: string): ParsedSecretToken {
  return parseSecretToken(token, [PREFIX]);
}
