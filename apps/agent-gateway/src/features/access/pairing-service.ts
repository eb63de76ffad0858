import type {
  Device,
  DeviceScope,
  PairingCode,
  PairingCodeRequest,
  RedeemPairingRequest,
  RedeemPairingResponse,
} from '@pa/contracts';
import { Forbidden, NotFound, ValidationFailed } from '@pa/http-kit';
import type { WorkspacesRepository } from '../workspace/workspaces-repository.ts';
import { toApiDevice, toRedeemResponse } from './access-mapper.ts';
import type { AccessRepository } from './access-repository.ts';
import { callerWorkspace, type Caller } from '../workspace/caller.ts';
import { generateDeviceToken, parseDeviceToken } from './device-token.ts';
import {
  generatePairingCode,
  hashPairingCode,
  normalisePairingCode,
  PAIRING_CODE_TTL_MS,
} from './pairing-code.ts';

// Pairing (docs/access.md): an admin makes a one-use code for a workspace and scopes; a device redeems it for a token
// of its own. Devices are listed and revoked by admins of their workspace (the operator: any).

export interface PairingDeps {
  access: AccessRepository;
  workspaces: WorkspacesRepository;
  /** tests fix the clock to see codes expire */
  now?: () => Date;
  /** told the id of each device revoked, so its open streams close at once */
  onRevoked?: (deviceId: string) => void | Promise<void>;
}

const INVALID_CODE = 'The pairing code is unknown, used or expired.';

export function createPairingService(deps: PairingDeps) {
  const { access } = deps;
  const now = deps.now ?? (() => new Date());

  return {
    async createCode(caller: Caller, input: PairingCodeRequest): Promise<PairingCode> {
      const scopes: DeviceScope[] = input.scopes ?? ['chat'];
      if (caller.kind === 'device') {
        // a device hands out no more than it holds, and only in its own workspace
        if (input.workspaceId !== caller.workspaceId) {
          throw new Forbidden(
            'workspace-forbidden',
            'This device may create codes for its own workspace only.',
          );
        }
        const missing = scopes.filter((s) => !caller.scopes.includes(s));
        if (missing.length) {
          throw new Forbidden(
            'insufficient-scope',
            `This device cannot grant scopes it does not hold: ${missing.join(', ')}.`,
          );
        }
      } else if (caller.kind !== 'operator') {
        throw new Forbidden('insufficient-scope', 'Creating pairing codes needs the admin scope.');
      }
      if (!(await deps.workspaces.exists(input.workspaceId)))
        throw new NotFound('workspace-not-found', 'No such workspace.');

      const at = now();
      await access.deleteExpiredCodes(at);
      const code = generatePairingCode();
      const expiresAt = new Date(at.getTime() + PAIRING_CODE_TTL_MS);
      await access.createCode({
        workspaceId: input.workspaceId,
        codeHash: hashPairingCode(code),
        scopes,
        label: input.label,
        expiresAt,
      });
      return { code, expiresAt: expiresAt.toISOString(), scopes };
    },

    /** Every bad code (unknown, used, expired, misshapen) gets the same answer. */
    async redeem(input: RedeemPairingRequest): Promise<RedeemPairingResponse> {
      const code = normalisePairingCode(input.code);
      if (!code) throw invalidCode();
      const token = generateDeviceToken();
      const parsed = parseDeviceToken(token);
      if (!parsed.ok) throw new Error('A generated device token does not parse.');
      const device = await access.redeemCode(hashPairingCode(code), now(), {
        name: input.deviceName,
        tokenPrefix: parsed.lookupPrefix,
        tokenHash: parsed.hash,
      });
      if (!device) throw invalidCode();
      return toRedeemResponse(device, token);
    },

    async listDevices(caller: Caller): Promise<Device[]> {
      const rows = await access.listDevices(callerWorkspace(caller));
      return rows.map(toApiDevice);
    },

    /** Revoking again changes nothing; another workspace's device is not found. */
    async revokeDevice(caller: Caller, deviceId: string): Promise<void> {
      const device = await access.device(deviceId, callerWorkspace(caller));
      if (!device) throw new NotFound('device-not-found', 'No such device.');
      await access.revokeDevice(deviceId, now());
      await deps.onRevoked?.(deviceId);
    },
  };
}
export type PairingService = ReturnType<typeof createPairingService>;

function invalidCode() {
  return new ValidationFailed([{ pointer: '#/code', detail: INVALID_CODE }], INVALID_CODE, {
    code: 'pairing-code-invalid',
  });
}
