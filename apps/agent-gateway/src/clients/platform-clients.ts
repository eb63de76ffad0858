import type { Config } from '../config.ts';
import { createPlatformBridgeClient, type PlatformBridge } from './bridge/platform-bridge-client.ts';
import type { PlatformBridgeClientOptions } from './bridge/bridge-transport.ts';

/** Binding's smoke test: the bridge portfolio read (one property is enough) with the candidate key. */
export function bridgeSmokeTest(bridge: PlatformBridge) {
  return { portfolioWithKey: (apiKey: string) => bridge.forKey(apiKey).getPortfolio({ limit: 1 }) };
}

/**
 * The bridge clients the gateway needs: one for the workers' tools, one for binding's smoke test. `onCall` is told
 * of each call they make (the gateway's metrics, lib/metrics).
 */
export function createPlatformClients(
  config: Pick<Config, 'PLATFORM_BASE_URL' | 'PLATFORM_TIMEOUT_MS'>,
  onCall?: PlatformBridgeClientOptions['onCall'],
): {
  platform: PlatformBridge;
  smokeTest: ReturnType<typeof bridgeSmokeTest>;
} {
  const base = { baseUrl: config.PLATFORM_BASE_URL, timeoutMs: config.PLATFORM_TIMEOUT_MS, onCall };
  return {
    platform: createPlatformBridgeClient(base),
    // The smoke test gets the whole budget once: retries must not stretch it past the timeout.
    smokeTest: bridgeSmokeTest(
      createPlatformBridgeClient({ ...base, deadlineMs: config.PLATFORM_TIMEOUT_MS }),
    ),
  };
}
