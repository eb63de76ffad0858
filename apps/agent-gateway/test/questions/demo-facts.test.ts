import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformBridgeClient } from '../../src/clients/bridge/platform-bridge-client.ts';
import { PLATFORM_TEST_NOW, type PlatformForGateway, startPlatformForGateway } from '../support/platform.ts';
import {
  arrears,
  arrearsGrown,
  cleanRefs,
  type DemoFacts,
  dueWithin,
  emailsNeedingReply,
  expiredRefs,
  readDemoFacts,
  tenanciesEnding,
  voidRefs,
} from './demo-facts.ts';

let platform: PlatformForGateway;
let facts: DemoFacts;
beforeAll(async () => {
  platform = await startPlatformForGateway();
  const demo = await platform.seedDemo();
  facts = await readDemoFacts(createPlatformBridgeClient({ baseUrl: platform.baseUrl }).forKey(demo.key));
});
afterAll(async () => platform?.close());

// The referee checked against what is known of the demo portfolio (local-provider.test.ts)
// on the bridge's fixed test clock: if a derivation here were wrong, the question set would grade the wrong
// facts.

describe('facts of the demo tenant on a fixed clock', () => {
  it("today is the London date of the portfolio's as_of", () => {
    expect(PLATFORM_TEST_NOW).toBe('2026-06-15T09:00:00Z');
    expect(facts.today).toBe('2026-06-15');
    expect(facts.refs).toHaveLength(facts.summary.properties_total);
  });

  it('expired gas certificates, and the properties whose gas is all valid', () => {
    expect(expiredRefs(facts, 'gas_safety')).toEqual(['BRS-002', 'LON-003', 'MAN-004']);
    const gas = facts.items.find((i) => i.ref === 'MAN-004' && i.type === 'gas_safety')!;
    expect([gas.due, gas.days]).toEqual(['2026-05-12', -34]);
    for (const ref of ['BRS-002', 'LON-003', 'MAN-004', 'MAN-003', 'LON-007'])
      expect(cleanRefs(facts, 'gas_safety')).not.toContain(ref);
    expect(cleanRefs(facts, 'gas_safety')).toContain('MAN-002');
  });

  it('an unsatisfactory EICR is due when its remedial work is', () => {
    const eicr = facts.items.find((i) => i.ref === 'MAN-004' && i.type === 'eicr')!;
    expect(eicr.item.expiry_date! > '2030-01-01').toBe(true);
    expect([eicr.due, eicr.days]).toEqual(['2026-06-27', 12]);
    expect(dueWithin(facts, 30).some((i) => i.ref === 'MAN-004' && i.type === 'eicr')).toBe(true);
  });

  it('arrears, voids, tenancies ending, deals and mail', () => {
    expect(arrears(facts)).toEqual([
      { ref: 'MAN-004', pence: 115_000 },
      { ref: 'LON-005', pence: 64_000 },
      { ref: 'LDS-004', pence: 28_500 },
    ]);
    expect(arrears(facts).reduce((sum, a) => sum + a.pence, 0)).toBe(facts.summary.arrears_pence);
    // of those, only MAN-004's grew in the last 30 days (LDS-004's fell, LON-005's stood still)
    expect(arrearsGrown(facts)).toEqual([{ ref: 'MAN-004', pence: 115_000, risePence: 45_000 }]);
    expect(voidRefs(facts)).toEqual(['BRS-005', 'MAN-007']);
    // from 1 May 2026 only a notice or a possession date ends a tenancy (LON-003's fixed term no longer does)
    expect(tenanciesEnding(facts, 60).map((t) => t.ref)).toEqual(['MAN-004', 'LON-007']);
    expect(facts.openDeals).toHaveLength(facts.summary.open_deals);
    // three of the day's requests for a reply were answered in their thread
    const asking = facts.emails24.filter((e) => e.direction === 'inbound' && e.requires_response);
    expect(emailsNeedingReply(facts.emails24, facts.emails168).length).toBe(asking.length - 3);
  });
});
