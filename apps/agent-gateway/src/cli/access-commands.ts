import type { Device } from '@pa/contracts';
import { parseScopes } from './access-usage.ts';
import type { Config } from '../config.ts';
import { connectRedis } from '../lib/redis.ts';
import { revocationChannel } from '../features/access/revocation-bus.ts';
import { OPERATOR } from '../features/workspace/caller.ts';
import { createPairingService } from '../features/access/pairing-service.ts';
import type { Repositories } from '../compose/repositories.ts';

// `pairing create` and `devices list|revoke` (docs/access.md): the CLI acts as the operator. A device revoked
// here loses its open streams on the running gateway within its revocation poll (about a second).

export async function runAccessCommand(
  repositories: Pick<Repositories, 'access' | 'workspaces'>,
  config: Pick<Config, 'REDIS_URL' | 'REDIS_PREFIX'>,
  command: string,
  sub: string | undefined,
  values: Record<string, string | boolean | undefined>,
): Promise<string> {
  // no revocation bus here: the command publishes the revocation itself (below)
  const pairing = createPairingService({
    access: repositories.access,
    workspaces: repositories.workspaces,
  });
  const json = values.json === true;
  if (command === 'pairing') {
    const code = await pairing.createCode(OPERATOR, {
      workspaceId: String(values.workspace),
      ...(values.scopes !== undefined ? { scopes: parseScopes(String(values.scopes))! } : {}),
      ...(typeof values.label === 'string' ? { label: values.label.trim() } : {}),
    });
    if (json) return JSON.stringify(code);
    return [
      `Pairing code: ${code.code.slice(0, 4)}-${code.code.slice(4)}`,
      `Scopes: ${code.scopes.join(', ')}; valid until ${code.expiresAt} (10 minutes), once.`,
      'Open the gateway on the device and enter the code.',
    ].join('\n');
  }
  if (sub === 'revoke') {
    await pairing.revokeDevice(OPERATOR, String(values.id));
    await tellGateways(config, String(values.id));
    return json ? JSON.stringify({ id: values.id, revoked: true }) : `Revoked device ${String(values.id)}.`;
  }
  const devices = await pairing.listDevices(OPERATOR);
  if (json) return JSON.stringify({ devices });
  return devices.map(deviceLine).join('\n') || '(none)';
}

function deviceLine(d: Device): string {
  const state = d.revokedAt ? `revoked ${d.revokedAt}` : `last used ${d.lastUsedAt ?? 'never'}`;
  return `${d.id}  ${d.name}  [${d.scopes.join(', ')}]  workspace ${d.workspaceId}  ${state}`;
}

/**
 * Tells the running gateways over Redis, as a revoking gateway does: they drop the device from their token caches
 * and close its streams at once. Without Redis they have no cache, and their poll closes the streams.
 */
async function tellGateways(config: Pick<Config, 'REDIS_URL' | 'REDIS_PREFIX'>, deviceId: string) {
  const redis = await connectRedis(config.REDIS_URL, { timeoutMs: 1000 });
  if (!redis) return;
  try {
    await redis.publish(revocationChannel(config.REDIS_PREFIX), deviceId);
  } finally {
    redis.disconnect();
  }
}
