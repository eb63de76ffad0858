import type { Command, OptionValues } from './command.ts';
import { textTable as table } from '@pa/http-kit';
import { UsageError } from './usage-error.ts';

// The `webhooks` commands (docs/operations.md): endpoints per tenant (the secret printed once), their deliveries, and
// sending a delivery again with the same webhook-id.

const str = (opts: OptionValues, name: 'tenant' | 'url' | 'id' | 'status'): string => {
  const v = opts[name];
  if (typeof v !== 'string') throw new UsageError(`--${name} needs a value.`);
  return v;
};

function idOf(opts: OptionValues, what: string): number {
  const raw = str(opts, 'id');
  if (!/^[1-9]\d{0,9}$/.test(raw) || Number(raw) > 2_147_483_647) {
    throw new UsageError(`--id must be ${what} id (a positive integer), not "${raw}".`);
  }
  return Number(raw);
}

export const WEBHOOK_COMMANDS: Command[] = [
  {
    name: 'webhooks add',
    synopsis: '--tenant S --url U',
    summary: 'Register a signed-events endpoint (its secret is shown once)',
    required: ['tenant', 'url'],
    optional: [],
    async run({ webhooks }, opts) {
      const w = await webhooks().addEndpoint(str(opts, 'tenant'), str(opts, 'url'));
      return {
        json: w,
        text: [
          `Registered webhook endpoint ${w.id} for tenant ${w.tenant}: ${w.url}`,
          'Signing secret (give it to the receiver, e.g. PLATFORM_WEBHOOK_SECRET of the gateway):',
          '',
          `  ${w.secret}`,
          '',
        ].join('\n'),
        notice: 'Store this secret now: it will not be shown again.',
      };
    },
  },
  {
    name: 'webhooks list',
    synopsis: '--tenant S',
    summary: "List a tenant's endpoints (never the secrets)",
    required: ['tenant'],
    optional: [],
    async run({ webhooks }, opts) {
      const tenant = str(opts, 'tenant');
      const endpoints = await webhooks().listEndpoints(tenant);
      const text = endpoints.length
        ? table(
            ['ID', 'URL', 'STATE', 'PENDING', 'SUCCEEDED', 'FAILED', 'CREATED'],
            endpoints.map((w) => [
              String(w.id),
              w.url,
              w.enabled ? 'enabled' : `disabled ${w.disabled_at} (${w.disabled_reason ?? ''})`,
              String(w.deliveries.pending),
              String(w.deliveries.succeeded),
              String(w.deliveries.failed),
              w.created_at,
            ]),
          )
        : `Tenant ${tenant} has no webhook endpoints. Add one with: npm run platform -- webhooks add --tenant ${tenant} --url U`;
      return { json: { tenant, endpoints }, text };
    },
  },
  {
    name: 'webhooks remove',
    synopsis: '--id N',
    summary: 'Remove an endpoint; nothing more is sent to it',
    required: ['id'],
    optional: [],
    check: (opts) => void idOf(opts, 'an endpoint'),
    async run({ webhooks }, opts) {
      const r = await webhooks().removeEndpoint(idOf(opts, 'an endpoint'));
      return { json: r, text: `Removed webhook endpoint ${r.id} (${r.url}) of ${r.tenant}.` };
    },
  },
  {
    name: 'webhooks deliveries',
    synopsis: '--tenant S [--status pending|succeeded|failed]',
    summary: "A tenant's latest 50 deliveries, newest first",
    required: ['tenant'],
    optional: ['status'],
    check(opts) {
      const s = opts.status;
      if (s !== undefined && !['pending', 'succeeded', 'failed'].includes(String(s))) {
        throw new UsageError(`--status must be pending, succeeded or failed, not "${String(s)}".`);
      }
    },
    async run({ webhooks }, opts) {
      const tenant = str(opts, 'tenant');
      const status = opts.status === undefined ? undefined : str(opts, 'status');
      const deliveries = await webhooks().listDeliveries(tenant, status);
      const text = deliveries.length
        ? table(
            ['ID', 'WEBHOOK-ID', 'EVENT', 'ENDPOINT', 'STATUS', 'ATTEMPTS', 'LAST', 'NEXT / DELIVERED'],
            deliveries.map((d) => [
              String(d.id),
              d.webhook_id,
              d.event_type,
              String(d.endpoint_id),
              d.status,
              String(d.attempts),
              d.last_status_code !== null ? `HTTP ${d.last_status_code}` : (d.last_error ?? ''),
              d.delivered_at ?? d.next_attempt_at ?? '',
            ]),
          )
        : `Tenant ${tenant} has no ${status ? `${status} ` : ''}deliveries.`;
      return { json: { tenant, status: status ?? null, deliveries }, text };
    },
  },
  {
    name: 'webhooks redeliver',
    synopsis: '--id N',
    summary: 'Send a finished delivery again now (same webhook-id)',
    required: ['id'],
    optional: [],
    check: (opts) => void idOf(opts, 'a delivery'),
    async run({ webhooks }, opts) {
      const r = await webhooks().redeliver(idOf(opts, 'a delivery'));
      return { json: r, text: `Delivery ${r.id} (${r.webhook_id}) will be sent again now.` };
    },
  },
];
