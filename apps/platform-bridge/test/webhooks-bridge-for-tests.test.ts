import { describe, expect, it } from 'vitest';
import { recordEvents } from '../src/features/webhooks/record-events.ts';
import { startBridgeForTests } from '../src/testing/bridge-for-tests.ts';
import { startWebhookReceiver } from './support/webhook-receiver.ts';
import { approvedEvent } from './support/webhooks.ts';
import { scaled } from '@pa/http-kit/testing';

// What other workspaces' tests get from `@pa/platform-bridge/testing`: enableWebhooks wires a tenant to a receiver
// and runs the platform's sender, so an event committed on the bridge arrives signed.
describe('startBridgeForTests().enableWebhooks', () => {
  it(
    'delivers a committed event, signed with the secret it returned',
    { timeout: scaled(30_000) },
    async () => {
      const bridge = await startBridgeForTests({ now: new Date().toISOString() });
      let secret = '';
      const receiver = await startWebhookReceiver(() => secret);
      try {
        const tenant = await bridge.createTenant();
        const hook = await bridge.enableWebhooks(tenant.slug, receiver.url);
        secret = hook.secret;
        const event = approvedEvent(tenant.slug);
        await bridge.db.$transaction((tx) => recordEvents(tx, tenant.id, [event], bridge.clock));
        await receiver.waitFor(() => receiver.received.length === 1, 10_000);
        expect(receiver.received[0]!.body).toEqual(event);
        expect(receiver.rejected).toBe(0);
      } finally {
        await receiver.close();
        await bridge.close();
      }
    },
  );
});
