import { bridgeRoutes } from '@pa/contracts';
import { answeredProblem, metricsTokenRefused } from '@pa/http-kit';
import {
  codeLabel,
  Counter,
  createAppMetrics,
  Gauge,
  type AppMetricsBase,
  type PoolCounts,
  poolMetrics,
  readWithin,
  sharedRead,
} from '@pa/telemetry';
import type { RequestHandler } from 'express';
import type { Db } from '../db.ts';

// The bridge's metrics (docs/operations.md, "Metrics"): the HTTP families, the signed events' outbox and its
// deliveries, the MCP tool calls and the database pool. One registry per app, made by serve.ts (tests make their
// own) and handed to createApp and the webhook sender. Off (METRICS_ENABLED unset), every hook is a no-op and no
// middleware is mounted.

export const BRIDGE_APP = 'platform-bridge';

/** How a signed event's delivery attempt ended (features/webhooks/webhook-sender.ts). */
export type DeliveryOutcome = 'succeeded' | 'retrying' | 'failed' | 'gone';

/** What an MCP tool call's audit line says (features/mcp): its tool and status (`ok`, a problem code, `cancelled`). */
interface AuditedCall {
  tool: string;
  status: string;
}

export interface BridgeMetrics extends AppMetricsBase<RequestHandler> {
  /** for the webhook sender; undefined when off */
  readonly webhookDelivery: ((outcome: DeliveryOutcome) => void) | undefined;
  /** the MCP audit writer, counting each call it records by tool and status */
  countingToolCalls<W extends { record(line: AuditedCall): void }>(audit: W): W;
}

export const METRICS_OFF: BridgeMetrics = {
  enabled: false,
  http: null,
  endpoint: null,
  webhookDelivery: undefined,
  countingToolCalls: (audit) => audit,
  listen: async () => null,
  scrape: async () => '',
};

export function createBridgeMetrics(opts: {
  /** METRICS_ENABLED */
  enabled: boolean;
  /** METRICS_TOKEN */
  token: string | undefined;
  db: Db;
  /** the pg Pool under Prisma and the prepared statements; absent on the embedded database */
  pool?: PoolCounts | null | undefined;
}): BridgeMetrics {
  if (!opts.enabled) return METRICS_OFF;
  const { registry, registers, http, endpoint, listen, scrape } = createAppMetrics({
    app: BRIDGE_APP,
    routes: Object.values(bridgeRoutes),
    token: opts.token,
    problemOf: answeredProblem,
    unauthorized: metricsTokenRefused,
  });

  // one COUNT at a time, however many scrapes come while it runs
  const outboxPending = sharedRead(() => pendingDeliveries(opts.db));
  new Gauge({
    name: 'pa_outbox_pending',
    help: 'Signed-event deliveries not yet delivered nor given up (the outbox backlog), every tenant together.',
    registers,
    async collect() {
      this.set(await readWithin(outboxPending));
    },
  });
  const deliveries = new Counter({
    name: 'pa_webhook_deliveries_total',
    help: 'Signed-event delivery attempts by outcome (succeeded, retrying, failed for good, gone: endpoint answered 410).',
    labelNames: ['outcome'] as const,
    registers,
  });
  const toolCalls = new Counter({
    name: 'pa_mcp_tool_calls_total',
    help: 'MCP tool calls by tool and outcome (ok, cancelled, or the problem code of the tool error).',
    labelNames: ['tool', 'outcome'] as const,
    registers,
  });
  poolMetrics(registry, opts.pool);

  return {
    enabled: true,
    http: http as unknown as RequestHandler,
    endpoint: endpoint as unknown as RequestHandler,
    webhookDelivery: (outcome) => deliveries.inc({ outcome }),
    countingToolCalls: (audit) => {
      // the audit line is written for every call of a known tool (an unknown one is refused before): counted there
      return {
        ...audit,
        record(line: AuditedCall) {
          toolCalls.inc({ tool: codeLabel(line.tool), outcome: codeLabel(line.status) });
          audit.record(line);
        },
      };
    },
    listen,
    scrape,
  };
}

/** One COUNT over the deliveries' (status, next_attempt_at) index; a number for the operator, no tenant's rows. */
async function pendingDeliveries(db: Db): Promise<number> {
  const [row] = await db.$queryRaw<Array<{ pending: number }>>`
    SELECT count(*)::int AS pending FROM webhook_deliveries WHERE status = 'pending'`;
  return row?.pending ?? 0;
}
