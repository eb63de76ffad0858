import type { Config } from '../config.ts';
import { bridgeSmokeTest } from '../features/binding/bridge-smoke-test.ts';
import type { SmokeTestClient } from '../features/binding/binding-service.ts';
import { createPlatformBridgeClient, type PlatformBridge } from './platform-bridge-client.ts';

/** The bridge clients the gateway needs: one for the workers' tools, one for binding's smoke test. */
export function createPlatformClients(config: Pick<Config, 'PLATFORM_BASE_URL' | 'PLATFORM_TIMEOUT_MS'>): {
  platform: PlatformBridge;
  smokeTest: SmokeTestClient;
} {
  const base = { baseUrl: config.PLATFORM_BASE_URL, timeoutMs: config.PLATFORM_TIMEOUT_MS };
  return {
    platform: createPlatformBridgeClient(base),
    // The smoke test gets the whole budget once: retries must not stretch it past the timeout.
    smokeTest: bridgeSmokeTest(
      createPlatformBridgeClient({ ...base, deadlineMs: config.PLATFORM_TIMEOUT_MS }),
    ),
  };
}
