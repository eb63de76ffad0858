import type { Device, DeviceScope, RedeemPairingResponse } from '@pa/contracts';
import type { AccessRepository } from './access-repository.ts';

type DeviceRow = Awaited<ReturnType<AccessRepository['listDevices']>>[number];

/** A paired device as admins list it: never its token or the token's hash. */
export function toApiDevice(d: DeviceRow): Device {
  return {
    id: d.id,
    name: d.name,
    scopes: d.scopes as DeviceScope[],
    workspaceId: d.workspaceId,
    createdAt: d.createdAt.toISOString(),
    lastUsedAt: d.lastUsedAt?.toISOString() ?? null,
    revokedAt: d.revokedAt?.toISOString() ?? null,
  };
}

/** The answer to a redeemed pairing code: the only time the device's token is shown. */
export function toRedeemResponse(
  device: Pick<DeviceRow, 'id' | 'scopes' | 'workspaceId'>,
  token: string,
): RedeemPairingResponse {
  return {
    deviceId: device.id,
    token,
    scopes: device.scopes as DeviceScope[],
    workspaceId: device.workspaceId,
  };
}
