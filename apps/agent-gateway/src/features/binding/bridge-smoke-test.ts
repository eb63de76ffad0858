import type { PlatformBridge } from '../../clients/platform-bridge-client.ts';
import type { SmokeTestClient } from './binding-service.ts';

/** Binding's smoke test: the bridge portfolio read (one property is enough) with the candidate key. */
export function bridgeSmokeTest(bridge: PlatformBridge): SmokeTestClient {
  return { portfolioWithKey: (apiKey) => bridge.forKey(apiKey).getPortfolio({ limit: 1 }) };
}
