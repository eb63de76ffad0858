import { bridgeRoutes, gatewayRoutes } from '@pa/contracts';
import { answeredProblem, metricsTokenRefused } from '@pa/http-kit';
import {
  codeLabel,
  Counter,
  createAppMetrics,
  Gauge,
  Histogram,
  type AppMetricsBase,
  type PoolCounts,
  poolMetrics,
  readWithin,
  sharedRead,
} from '@pa/telemetry';
import type { Worker } from 'bullmq';
import type { RequestHandler } from 'express';
import type { Config } from '../../config.ts';
import type { Db } from '../db.ts';
import { mailboxSyncLag } from './mailbox-lag.ts';
import { type MetricsQueue, queueMetrics } from './queue-metrics.ts';

// The gateway's metrics (docs/operations.md, "Metrics"): one registry per gateway, made with the runtime
// (compose/open-runtime.ts; tests make their own) and handed to the composition root, which gives each feature the
// hooks it reports through. Off (METRICS_ENABLED unset), every hook is a no-op and no middleware is mounted.

export const GATEWAY_APP = 'agent-gateway';

/** What a chat turn reports (features/chat/chat-service.ts). */
export interface ChatMetrics {
  chatTurn(turn: { provider: string; channel: string; status: string; seconds: number }): void;
  /** `tool`: a tool the turn was offered (an unknown name is reported as `unknown` by the caller) */
  toolCall(tool: string, outcome: 'ok' | 'error'): void;
}

/** An event stream opened; call what it returns when the stream closes. */
export interface StreamMetrics {
  streamOpened(): () => void;
}

/** One call of the bridge client: the route's operationId, `ok` or the BridgeError's kind, its duration. */
export type BridgeCallObserver = (operation: string, status: string, seconds: number) => void;

export interface GatewayMetrics extends AppMetricsBase<RequestHandler>, ChatMetrics, StreamMetrics {
  /** for the bridge clients (clients/platform-clients.ts); undefined when off */
  readonly bridgeCall: BridgeCallObserver | undefined;
  /** counts a BullMQ worker's jobs by outcome, with their durations */
  watchWorker(queue: string, worker: Pick<Worker, 'on'>): void;
}

const noop = () => {};
// the bridge's operations: the only values the operation label takes
const BRIDGE_OPERATIONS = new Set(Object.keys(bridgeRoutes));

export const METRICS_OFF: GatewayMetrics = {
  enabled: false,
  http: null,
  endpoint: null,
  bridgeCall: undefined,
  chatTurn: noop,
  toolCall: noop,
  streamOpened: () => noop,
  watchWorker: noop,
  listen: async () => null,
  scrape: async () => '',
};

/** What the collectors read when scraped. */
export interface GatewayMetricSources {
  db: Db;
  /** the pg Pool under Prisma and the prepared statements; absent on the embedded database */
  pool?: PoolCounts | null | undefined;
  /** the queues whose depths are reported (the daily summary's, when it is on) */
  queues?: ReadonlyArray<MetricsQueue | null | undefined>;
}

export function createGatewayMetrics(
  config: Pick<Config, 'METRICS_ENABLED' | 'METRICS_TOKEN' | 'EMAIL_INGESTION_ENABLED'>,
  sources: GatewayMetricSources,
): GatewayMetrics {
  if (!config.METRICS_ENABLED) return METRICS_OFF;
  const { registry, registers, http, endpoint, listen, scrape } = createAppMetrics({
    app: GATEWAY_APP,
    routes: Object.values(gatewayRoutes),
    token: config.METRICS_TOKEN,
    problemOf: answeredProblem,
    unauthorized: metricsTokenRefused,
  });

  const turns = new Counter({
    name: 'pa_chat_turns_total',
    help: 'Chat turns by provider, channel and how they ended (complete, interrupted, error, replayed).',
    labelNames: ['provider', 'channel', 'status'] as const,
    registers,
  });
  const turnDuration = new Histogram({
    name: 'pa_chat_turn_duration_seconds',
    help: 'A chat turn from the provider’s first call to the stored reply, tool calls included.',
    labelNames: ['provider', 'channel'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120],
    registers,
  });
  const tools = new Counter({
    name: 'pa_tool_calls_total',
    help: 'Tool calls of the chat’s workers by tool and outcome (ok, error).',
    labelNames: ['tool', 'outcome'] as const,
    registers,
  });
  const bridgeCalls = new Counter({
    name: 'pa_bridge_requests_total',
    help: 'Calls of the platform bridge by operation and result (ok, or the failure kind), retries included.',
    labelNames: ['operation', 'status'] as const,
    registers,
  });
  const bridgeDuration = new Histogram({
    name: 'pa_bridge_request_duration_seconds',
    help: 'A call of the platform bridge, its retries included.',
    labelNames: ['operation'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const streams = new Gauge({
    name: 'pa_sse_streams_open',
    help: 'Chat event streams open now.',
    registers,
  });
  const jobs = queueMetrics(registry, sources.queues ?? []);
  poolMetrics(registry, sources.pool);
  // one query at a time, however many scrapes come while it runs
  const mailboxLag = sharedRead(() => mailboxSyncLag(sources.db));
  new Gauge({
    name: 'pa_mailbox_sync_lag_seconds',
    help: 'The longest time since an assistant-held mailbox (not stopped) was last synced; 0 when there is none.',
    registers,
    async collect() {
      // the mailboxes are synced only with EMAIL_INGESTION_ENABLED: without it there is no lag to speak of
      this.set(config.EMAIL_INGESTION_ENABLED ? await readWithin(mailboxLag) : 0);
    },
  });

  return {
    enabled: true,
    http: http as unknown as RequestHandler,
    endpoint: endpoint as unknown as RequestHandler,
    bridgeCall: (operation, status, seconds) => {
      const op = BRIDGE_OPERATIONS.has(operation) ? operation : 'other';
      bridgeCalls.inc({ operation: op, status: codeLabel(status) });
      bridgeDuration.observe({ operation: op }, seconds);
    },
    chatTurn: ({ provider, channel, status, seconds }) => {
      const labels = { provider: codeLabel(provider), channel: codeLabel(channel) };
      turns.inc({ ...labels, status: codeLabel(status) });
      turnDuration.observe(labels, seconds);
    },
    toolCall: (tool, outcome) => tools.inc({ tool: codeLabel(tool), outcome }),
    streamOpened: () => {
      streams.inc();
      let open = true;
      return () => {
        if (!open) return;
        open = false;
        streams.dec();
      };
    },
    watchWorker: jobs.watchWorker,
    listen,
    scrape,
  };
}
