import { PairingCode, RedeemPairingResponse, type DeviceScope } from '@pa/contracts';
import { expect } from 'vitest';
import { expectContract, postJson } from './http.ts';
import type { TestGateway } from './test-app.ts';

// Access tests' helpers: a gateway with GATEWAY_AUTH=token, and devices paired through its real API.

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdefghijklmnop';
export const TOKEN_ENV = { GATEWAY_AUTH: 'token', GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN } as const;
export const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}` };

export async function newWorkspace(g: TestGateway, name = 'ws'): Promise<string> {
  return (await g.db.workspace.create({ data: { name: `${name}-${Date.now()}` } })).id;
}

export async function createCode(
  g: TestGateway,
  workspaceId: string,
  scopes?: DeviceScope[],
  headers: Record<string, string> = adminHeaders,
): Promise<PairingCode> {
  const res = await postJson(
    g.baseUrl,
    '/api/pairing/codes',
    { workspaceId, ...(scopes ? { scopes } : {}) },
    headers,
  );
  expect(res.status, await res.clone().text()).toBe(201);
  return expectContract(PairingCode, await res.json());
}

export interface PairedDevice extends RedeemPairingResponse {
  /** the Set-Cookie header of the redeem */
  cookie: string;
  bearer: Record<string, string>;
}

export async function pairDevice(
  g: TestGateway,
  workspaceId: string,
  scopes?: DeviceScope[],
  deviceName = 'phone',
): Promise<PairedDevice> {
  const { code } = await createCode(g, workspaceId, scopes);
  const res = await postJson(g.baseUrl, '/api/pairing/redeem', { code, deviceName });
  expect(res.status, await res.clone().text()).toBe(201);
  const body = expectContract(RedeemPairingResponse, await res.json());
  return {
    ...body,
    cookie: res.headers.get('set-cookie') ?? '',
    bearer: { authorization: `Bearer ${body.token}` },
  };
}
