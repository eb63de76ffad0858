import type { PlatformBridge } from '../../clients/bridge/platform-bridge-client.ts';
import type { OwnEmailReader } from '../email/worker-email-activity.ts';
import { SummaryFailure } from './briefing-source.ts';
import type { BridgeAccess } from './summary-processor.ts';

/**
 * The worker's bound key, opened, and `watch` to send its calls through (so that a refused key shows in Settings);
 * null when it is not bound. The binding service's credentials(), described here because binding imports this
 * feature (its schedulers), not the other way round.
 */
export type WorkerCredentials = (workerId: string) => Promise<{
  tenantSlug: string;
  apiKey: string;
  watch<C extends object>(client: C): C;
} | null>;

// How a summary run reaches the bridge: over the worker's own bound key, as its chat does. A run with the bridge
// off or the worker unbound is skipped, with why; a key that no longer opens fails the run for good.
export function summaryBridgeAccess(deps: {
  bridgeEnabled: boolean;
  credentials: WorkerCredentials;
  platform: PlatformBridge;
  ownEmail?: ((workerId: string) => OwnEmailReader) | undefined;
}): (workerId: string) => Promise<BridgeAccess> {
  return async (workerId) => {
    if (!deps.bridgeEnabled)
      return { skipped: 'the platform bridge is turned off on this gateway (PLATFORM_BRIDGE_ENABLED).' };
    let credentials;
    try {
      credentials = await deps.credentials(workerId);
    } catch (err) {
      // only a key sealed with another GATEWAY_SECRET_KEY fails to open; a database error fails the query above
      if (!(err instanceof Error && /unable to authenticate|secret format/i.test(err.message))) throw err;
      throw new SummaryFailure(
        'the stored platform key could not be opened (was GATEWAY_SECRET_KEY changed?): bind the assistant again.',
        true,
      );
    }
    if (!credentials) return { skipped: 'the worker is no longer bound to a platform tenant.' };
    // watched: a run refused with 401 tells Settings that the key no longer works
    return {
      client: credentials.watch(deps.platform.forKey(credentials.apiKey)),
      ownEmail: deps.ownEmail?.(workerId),
    };
  };
}
