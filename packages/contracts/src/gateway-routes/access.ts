import {
  DeviceIdParams,
  DevicesResponse,
  PairingCode,
  PairingCodeRequest,
  RedeemPairingRequest,
  RedeemPairingResponse,
} from '../access.ts';
import type { RouteSpec } from '../routes.ts';
import { jsonBody, outage } from './shared.ts';

// Pairing codes and the devices paired with them.

export const accessRoutes = {
  createPairingCode: {
    method: 'post',
    path: '/api/pairing/codes',
    access: 'admin',
    summary: 'Creates a one-use pairing code for a device of a workspace (valid 10 minutes)',
    tags: ['access'],
    body: PairingCodeRequest,
    responses: { 201: { description: 'The code, shown once', schema: PairingCode } },
    problems: {
      400: ['validation-failed', 'malformed-json'],
      401: ['unauthorized'],
      403: ['insufficient-scope', 'workspace-forbidden'],
      404: ['workspace-not-found'],
      ...jsonBody,
      ...outage,
    },
  },
  redeemPairingCode: {
    method: 'post',
    path: '/api/pairing/redeem',
    access: 'open',
    summary: 'Redeems a pairing code for a device token (also set as the `gw_session` cookie)',
    description:
      'Unknown, used and expired codes all answer 400 `pairing-code-invalid`; 5 failures from one IP within 10 minutes answer 429 until the window ends.',
    tags: ['access'],
    body: RedeemPairingRequest,
    responses: {
      201: {
        description: 'Paired',
        schema: RedeemPairingResponse,
        headers: {
          'Set-Cookie': {
            description: '`gw_session`: HttpOnly; SameSite=Strict; Path=/; Secure behind HTTPS',
          },
        },
      },
    },
    problems: {
      400: ['validation-failed', 'malformed-json', 'pairing-code-invalid'],
      ...jsonBody,
      429: ['rate-limited'],
      ...outage,
    },
  },
  listDevices: {
    method: 'get',
    path: '/api/devices',
    access: 'admin',
    summary: 'Paired devices (never a token); an admin device sees its own workspace’s',
    tags: ['access'],
    responses: { 200: { description: 'Devices', schema: DevicesResponse } },
    problems: { 401: ['unauthorized'], 403: ['insufficient-scope'], ...outage },
  },
  revokeDevice: {
    method: 'delete',
    path: '/api/devices/:deviceId',
    access: 'admin',
    summary: 'Revokes a device at once; its open event streams are closed',
    tags: ['access'],
    params: DeviceIdParams,
    responses: { 204: { description: 'Revoked (again: no change)' } },
    problems: {
      400: ['validation-failed'],
      401: ['unauthorized'],
      403: ['insufficient-scope'],
      404: ['device-not-found'],
      ...outage,
    },
  },
} as const satisfies Record<string, RouteSpec>;
