import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AddressPolicy,
  checkEndpointUrl,
  EndpointRefused,
  refusedAddress,
  type Resolver,
} from '../src/features/webhooks/endpoint-address.ts';
import { recordEvents } from '../src/features/webhooks/record-events.ts';
import { makeTenant } from './support/factories.ts';
import { startTestBridge, type TestBridge } from './support/test-app.ts';
import { startWebhookReceiver } from './support/webhook-receiver.ts';
import { approvedEvent, testSender, webhookAdmin } from './support/webhooks.ts';

// A resolver the test controls: `evil.test` and friends resolve to whatever the table says.
function fakeDns(table: Record<string, string[]>): Resolver & { table: Record<string, string[]> } {
  const resolver = async (hostname: string): Promise<LookupAddress[]> => {
    const found = resolver.table[hostname];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  resolver.table = table;
  return resolver;
}

const open: AddressPolicy = { allowHttpLoopback: true, resolver: fakeDns({}) };
const strict: AddressPolicy = { allowHttpLoopback: false, resolver: fakeDns({}) };

async function refusal(url: string, policy: AddressPolicy): Promise<EndpointRefused> {
  const err = await checkEndpointUrl(url, policy).then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof EndpointRefused)) throw new Error(`${url} was not refused`);
  return err;
}

describe('refusedAddress', () => {
  it.each([
    ['169.254.169.254', 'linkLocal'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['fd00:ec2::254', 'uniqueLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fe80::1', 'linkLocal'],
    ['::', 'unspecified'],
    ['ff02::1', 'multicast'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['2002:a00:1::', '6to4'],
  ])('refuses %s (%s)', (address, range) => {
    expect(refusedAddress(address, true)).toContain(range);
  });

  it('allows public unicast addresses, and loopback only when allowed', () => {
    expect(refusedAddress('93.184.216.34', false)).toBeNull();
    expect(refusedAddress('2606:2800:220:1:248:1893:25c8:1946', false)).toBeNull();
    expect(refusedAddress('127.0.0.1', true)).toBeNull();
    expect(refusedAddress('::1', true)).toBeNull();
    expect(refusedAddress('127.0.0.1', false)).toContain('loopback');
    expect(refusedAddress('::ffff:127.0.0.1', false)).toContain('loopback');
  });
});

describe('checkEndpointUrl (registration)', () => {
  it('refuses the metadata address, private addresses and hosts that resolve to them', async () => {
    const policy: AddressPolicy = {
      allowHttpLoopback: true,
      resolver: fakeDns({ 'evil.test': ['10.0.0.1'], 'mixed.test': ['93.184.216.34', '192.168.0.9'] }),
    };
    expect((await refusal('https://169.254.169.254/latest/meta-data', policy)).reason).toBe('address');
    expect((await refusal('https://[fd00:ec2::254]/', policy)).reason).toBe('address');
    expect((await refusal('https://10.0.0.1/hooks', policy)).reason).toBe('address');
    expect((await refusal('https://evil.test/hooks', policy)).message).toContain('10.0.0.1');
    // every address must pass, not just the first
    expect((await refusal('https://mixed.test/hooks', policy)).message).toContain('192.168.0.9');
  });

  it('refuses http to a non-loopback host, other schemes, credentials and unresolvable hosts', async () => {
    const policy: AddressPolicy = {
      allowHttpLoopback: true,
      resolver: fakeDns({ 'public.test': ['93.184.216.34'] }),
    };
    expect((await refusal('http://public.test/hooks', policy)).reason).toBe('scheme');
    expect((await refusal('http://93.184.216.34/hooks', policy)).reason).toBe('scheme');
    expect((await refusal('ftp://public.test/hooks', policy)).reason).toBe('scheme');
    expect((await refusal('file:///etc/passwd', policy)).reason).toBe('scheme');
    expect((await refusal('https://user:pw@public.test/hooks', policy)).reason).toBe('url');
    expect((await refusal('not a url', policy)).reason).toBe('url');
    expect((await refusal('https://nowhere.test/hooks', policy)).reason).toBe('unresolvable');
  });

  it('refuses loopback, over http or https, when WEBHOOK_ALLOW_HTTP_LOOPBACK is off', async () => {
    expect((await refusal('http://127.0.0.1:3000/api/platform/events', strict)).reason).toBe('scheme');
    expect((await refusal('https://127.0.0.1/hooks', strict)).reason).toBe('address');
    expect((await refusal('https://[::1]/hooks', strict)).reason).toBe('address');
  });

  it('reaches a host the operator names as internal over http on its private address, and nothing else more', async () => {
    const policy: AddressPolicy = {
      allowHttpLoopback: false,
      internalHosts: ['agent-gateway'],
      resolver: fakeDns({
        'agent-gateway': ['172.18.0.5'],
        'other-service': ['172.18.0.6'],
        'metadata-alias': ['169.254.169.254'],
      }),
    };
    await expect(checkEndpointUrl('http://Agent-Gateway:3000/api/platform/events', policy)).resolves.toBe(
      'http://agent-gateway:3000/api/platform/events',
    );
    // a host not on the list is judged as before: http refused, and its private address too
    expect((await refusal('http://other-service:3000/hooks', policy)).reason).toBe('scheme');
    expect((await refusal('https://other-service/hooks', policy)).reason).toBe('address');
    // an internal host may not lead to the metadata address or another special range
    const metadata: AddressPolicy = { ...policy, internalHosts: ['metadata-alias'] };
    const refused = await refusal('http://metadata-alias/latest', metadata);
    expect(refused.reason).toBe('address');
    expect(refused.message).toContain('169.254.169.254');
  });

  it('accepts https to a public host and http to loopback when allowed', async () => {
    const policy: AddressPolicy = {
      allowHttpLoopback: false,
      resolver: fakeDns({ 'hooks.example': ['93.184.216.34'] }),
    };
    await expect(checkEndpointUrl('https://hooks.example/platform', policy)).resolves.toBe(
      'https://hooks.example/platform',
    );
    await expect(checkEndpointUrl('http://127.0.0.1:3000/api/platform/events', open)).resolves.toBe(
      'http://127.0.0.1:3000/api/platform/events',
    );
  });
});

describe('at send time', () => {
  let t: TestBridge;
  beforeAll(async () => {
    t = await startTestBridge();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('refuses registration of a refused URL through the operator service (validation-failed)', async () => {
    const tenant = await makeTenant(t, { flags: ['platform_event_webhooks'] });
    await expect(
      webhookAdmin(t, strict).addEndpoint(tenant.slug, 'http://127.0.0.1:9/hooks'),
    ).rejects.toMatchObject({
      code: 'validation-failed',
    });
    await expect(
      webhookAdmin(t, open).addEndpoint(tenant.slug, 'https://169.254.169.254/latest/meta-data'),
    ).rejects.toMatchObject({ code: 'validation-failed' });
    expect(await t.db.webhookEndpoint.count({ where: { tenantId: tenant.id } })).toBe(0);
  });

  it('checks the resolved address again and never connects when the name now points at a private address', async () => {
    let secret = '';
    const receiver = await startWebhookReceiver(() => secret);
    const port = new URL(receiver.url).port;
    // registered while `rebind.test` resolved to loopback (allowed here), then DNS changes to 10.0.0.1
    const dns = fakeDns({ 'rebind.test': ['127.0.0.1'] });
    const policy: AddressPolicy = { allowHttpLoopback: true, resolver: dns };
    const tenant = await makeTenant(t, { flags: ['platform_event_webhooks'] });
    const endpoint = await webhookAdmin(t, policy).addEndpoint(
      tenant.slug,
      `http://rebind.test:${port}/hooks`,
    );
    secret = endpoint.secret;
    const sender = await testSender(t, { policy });
    try {
      await recordEvents(t.db, tenant.id, [approvedEvent(tenant.slug)], t.clock);
      await sender.drain();
      expect(receiver.received).toHaveLength(1); // it resolved to the receiver on loopback

      dns.table['rebind.test'] = ['10.0.0.1'];
      await recordEvents(t.db, tenant.id, [approvedEvent(tenant.slug)], t.clock);
      await sender.drain();
      expect(receiver.received).toHaveLength(1);
      const last = await t.db.webhookDelivery.findFirstOrThrow({
        where: { tenantId: tenant.id },
        orderBy: { id: 'desc' },
      });
      expect(last).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: null });
      expect(last.lastError).toContain('10.0.0.1');
    } finally {
      await sender.stop();
      await receiver.close();
    }
  });

  it('refuses to send to a loopback endpoint once WEBHOOK_ALLOW_HTTP_LOOPBACK is off', async () => {
    let secret = '';
    const receiver = await startWebhookReceiver(() => secret);
    const tenant = await makeTenant(t, { flags: ['platform_event_webhooks'] });
    const endpoint = await webhookAdmin(t, open).addEndpoint(tenant.slug, receiver.url);
    secret = endpoint.secret;
    const sender = await testSender(t, { policy: strict });
    try {
      await recordEvents(t.db, tenant.id, [approvedEvent(tenant.slug)], t.clock);
      await sender.drain();
      expect(receiver.received).toHaveLength(0);
      const d = await t.db.webhookDelivery.findFirstOrThrow({ where: { tenantId: tenant.id } });
      expect(d.lastError).toContain('https');
    } finally {
      await sender.stop();
      await receiver.close();
    }
  });
});
