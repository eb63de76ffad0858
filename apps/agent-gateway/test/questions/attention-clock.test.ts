import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformBridgeClient } from '../../src/clients/bridge/platform-bridge-client.ts';
import { type BoundWorker, bindWorker } from '../support/bound-worker.ts';
import { PLATFORM_TEST_NOW, type PlatformForGateway, startPlatformForGateway } from '../support/platform.ts';
import { startTestGateway, type TestGateway } from '../support/test-app.ts';
import { everyAnswer, failures } from './checks.ts';
import { addDays, readDemoFacts } from './demo-facts.ts';
import { attentionChecks } from './questions-attention.ts';

// "What needs my attention this week?" at three clock dates: the demo seeded once, then the bridge's clock moved
// on, so that what was due falls overdue, a deposit's deadline passes and new items come into the window. Each
// answer is checked against what the bridge itself says on that day (demo-facts.ts).

const DATES = [
  PLATFORM_TEST_NOW,
  `${addDays('2026-06-15', 6)}T09:00:00Z`,
  `${addDays('2026-06-15', 40)}T09:00:00Z`,
];

let platform: PlatformForGateway;
let g: TestGateway;
let worker: BoundWorker;
let key: string;

beforeAll(async () => {
  platform = await startPlatformForGateway();
  const demo = await platform.seedDemo();
  key = demo.key;
  g = await startTestGateway({
    env: {
      PROVIDER: 'local',
      AI_WORKERS_ENABLED: 'true',
      PLATFORM_BRIDGE_ENABLED: 'true',
      PLATFORM_BASE_URL: platform.baseUrl,
      CHAT_RATE_LIMIT_PER_MIN: '10000',
    },
  });
  worker = await bindWorker(g, { slug: demo.tenant.slug, key: demo.key });
});

afterAll(async () => {
  await g?.close();
  await platform?.close();
});

describe('what needs my attention, as the clock moves', () => {
  for (const now of DATES) {
    for (const [say, days] of [
      ['What needs my attention this week?', 7],
      ['What needs my attention in the next 30 days?', 30],
    ] as const) {
      it(`${now.slice(0, 10)}: "${say}"`, async () => {
        platform.clock.set(now);
        const facts = await readDemoFacts(
          createPlatformBridgeClient({ baseUrl: platform.baseUrl }).forKey(key),
        );
        expect(facts.today).toBe(now.slice(0, 10));
        const { reply } = await worker.chat(say);
        const failed = failures(reply, [
          ...attentionChecks(facts, days),
          ...everyAnswer(facts.today, facts.properties),
        ]);
        if (failed.length) expect.fail(`The answer ${failed.join('; ')}.\n--- reply ---\n${reply}`);
      });
    }
  }
});
