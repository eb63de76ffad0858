import {
  type BridgeForTests,
  startBridgeForTests,
  type TestAdmin,
  type TestTenant,
} from '@pa/platform-bridge/testing';

// The REAL platform-bridge app, in-process, for the gateway's tests: its own migrated PostgreSQL database,
// listening on 127.0.0.1 on a free port. The gateway talks to it over HTTP only, as in production; the bridge
// exports this test harness so that nothing here reaches into its source.

export const PLATFORM_TEST_NOW = '2026-06-15T09:00:00Z';

export type { TestAdmin, TestTenant };
export type PlatformForGateway = BridgeForTests;

export function startPlatformForGateway(
  opts: { now?: string; rateLimitPerMin?: number; proposalPendingLimit?: number } = {},
): Promise<PlatformForGateway> {
  return startBridgeForTests({
    now: opts.now ?? PLATFORM_TEST_NOW,
    rateLimitPerMin: opts.rateLimitPerMin,
    proposalPendingLimit: opts.proposalPendingLimit,
    databasePrefix: 'platform_for_gw',
    demoKeyLabel: 'gateway tests',
  });
}
