import { z } from 'zod';
import { text } from './text.ts';

// Gateway access (docs/access.md): pairing codes that an admin creates and a device redeems for a scoped device
// token (`gwt_…`), and the devices list. camelCase like every gateway API.

export const DEVICE_SCOPES = ['chat', 'workers:write', 'admin'] as const;
export const DeviceScope = z.enum(DEVICE_SCOPES, { error: `must be one of ${DEVICE_SCOPES.join(', ')}` });

/** 8 characters from an alphabet without 0/O, 1/I/L: easy to read aloud and to type on a phone. */
export const PAIRING_CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const PAIRING_CODE = /^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{8}$/;
/** `gwt_` + 32 base62 + a 6-character base62 CRC32 of the random part. */
export const DEVICE_TOKEN = /^gwt_[0-9A-Za-z]{38}$/;
/** An embed key (docs/embedding.md): `gwe_` and the same shape. Public: it sits in the host page's HTML. */
export const EMBED_KEY = /^gwe_[0-9A-Za-z]{38}$/;

const scopeList = z
  .array(DeviceScope)
  .min(1, 'must name at least one scope')
  .max(DEVICE_SCOPES.length)
  .refine((s) => new Set(s).size === s.length, 'must not repeat a scope');

export const PairingCodeRequest = z.strictObject({
  workspaceId: z.uuid('must be a workspace UUID'),
  scopes: scopeList.optional().describe('what the paired device may do; default `["chat"]`'),
  label: text().trim().min(1).max(100).optional().describe('a note for the operator, e.g. "Sam’s phone"'),
});

export const PairingCode = z.strictObject({
  code: text().regex(PAIRING_CODE),
  expiresAt: z.iso.datetime(),
  scopes: z.array(DeviceScope),
});

export const RedeemPairingRequest = z.strictObject({
  // Normalised by the server (spaces and dashes dropped, upper-cased) before it is compared.
  code: text().trim().min(1).max(32),
  deviceName: text().trim().min(1).max(100),
});

export const RedeemPairingResponse = z.strictObject({
  deviceId: z.uuid(),
  token: text().regex(DEVICE_TOKEN).describe('shown once; also set as the `gw_session` cookie'),
  scopes: z.array(DeviceScope),
  workspaceId: z.uuid(),
});

export const Device = z.strictObject({
  id: z.uuid(),
  name: text(),
  scopes: z.array(DeviceScope),
  workspaceId: z.uuid(),
  createdAt: z.iso.datetime(),
  lastUsedAt: z.iso.datetime().nullable(),
  revokedAt: z.iso.datetime().nullable(),
});
export const DevicesResponse = z.strictObject({ devices: z.array(Device) });
export const DeviceIdParams = z.strictObject({ deviceId: z.uuid('must be a device UUID') });

export type DeviceScope = z.infer<typeof DeviceScope>;
export type PairingCodeRequest = z.infer<typeof PairingCodeRequest>;
export type PairingCode = z.infer<typeof PairingCode>;
export type RedeemPairingRequest = z.infer<typeof RedeemPairingRequest>;
export type RedeemPairingResponse = z.infer<typeof RedeemPairingResponse>;
export type Device = z.infer<typeof Device>;
export type DevicesResponse = z.infer<typeof DevicesResponse>;
