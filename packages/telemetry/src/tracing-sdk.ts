import type { IncomingMessage } from 'node:http';
import { register } from 'node:module';
import {
  type ContextAPI,
  context,
  type PropagationAPI,
  propagation,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { type InstrumentationBase, registerInstrumentations } from '@opentelemetry/instrumentation';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { PinoInstrumentation } from '@opentelemetry/instrumentation-pino';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import {
  defaultResource,
  detectResources,
  envDetector,
  hostDetector,
  processDetector,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { BullMQOtel } from 'bullmq-otel';
import { redactPath, redactQuery, redactUrl } from './tracing-redact.ts';

// The OpenTelemetry SDK for one process, imported by tracing.ts only when tracing is on. Traces only: the
// metrics are prom-client's (metrics.ts) and the logs stay on stdout, where pino's instrumentation adds
// trace_id/span_id to each line written inside a span.
//
// Spans go through a BatchSpanProcessor (OTEL_BSP_SCHEDULE_DELAY, _MAX_QUEUE_SIZE, … apply) to the OTLP/HTTP JSON
// exporter (OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT, _HEADERS, _TIMEOUT). The sampler is OTEL_TRACES_SAMPLER's
// (parent-based always-on by default), so a bridge request carrying a sampled traceparent is recorded with it.

/** Tracing as started: what tracing.ts hands out (inSpan, bullmqTelemetry, …) and how it stops. */
export interface RunningTracing {
  /** this process's tracer, for the few spans no instrumentation makes (inSpan) */
  tracer: Tracer;
  /** BullMQ's telemetry option (bullmq-otel): producer and consumer spans, the job carrying the context */
  bullmq: BullMQOtel;
  /** @opentelemetry/api's context and propagation, handed over so that tracing.ts imports nothing at run time */
  api: { context: ContextAPI; propagation: PropagationAPI };
  shutdown(): Promise<void>;
}

const ATTRIBUTE_VALUE_LIMIT = 1024;

// The paths nobody wants a trace of: health probes (compose and `npm start` poll them) and the metrics scrape.
const QUIET_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

function pathOf(url: string | undefined): string {
  if (!url) return '';
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

// Each instrumentation by the name OTEL_NODE_ENABLED_INSTRUMENTATIONS / OTEL_NODE_DISABLED_INSTRUMENTATIONS use
// (@opentelemetry/auto-instrumentations-node's variables: the package name after `instrumentation-`).
const INSTRUMENTATIONS: Record<string, () => InstrumentationBase> = {
  http: () =>
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (req: IncomingMessage) => QUIET_PATHS.has(pathOf(req.url)),
      // The server span keeps the query's names only; the client span's URL loses query values and bot tokens.
      startIncomingSpanHook: (req: IncomingMessage) => {
        const q = req.url?.indexOf('?') ?? -1;
        return q < 0 ? {} : { 'url.query': redactQuery(req.url!.slice(q + 1)) };
      },
      startOutgoingSpanHook: (opts) => {
        const path = typeof opts.path === 'string' ? opts.path : '';
        const protocol = typeof opts.protocol === 'string' ? opts.protocol : 'http:';
        const host = opts.hostname ?? opts.host ?? 'localhost';
        const port = opts.port ? `:${String(opts.port)}` : '';
        return { 'url.full': redactUrl(`${protocol}//${String(host)}${port}${path}`) };
      },
      // Background work (a Telegram long poll, the outbox sweep) is not a trace of its own; the same call made
      // inside a request, a job or a delivery span is.
      requireParentforOutgoingSpans: true,
    }),
  // No span per middleware: 5 to 8 spans a request, most of them microseconds long; a middleware that waits on
  // something (a key lookup, the rate limit's Redis) shows as that wait's pg or ioredis span anyway. Routers stay,
  // though their spans end as they start: an ignored router's path is never taken off the request, so every router
  // tried before the one that matches adds its path to http.route (/api/assistant/workers/workers/… with 0.71).
  express: () => new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
  // Statement text without values (no enhancedDatabaseReporting): parameters may be personal data.
  pg: () => new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
  ioredis: () => new IORedisInstrumentation({ requireParentSpan: true }),
  undici: () =>
    new UndiciInstrumentation({
      requireParentforSpans: true,
      startSpanHook: (request) => {
        const path = redactPath(pathOf(request.path));
        const query = redactQuery(request.path.slice(pathOf(request.path).length));
        return {
          'url.full': `${request.origin}${path}${query ? `?${query}` : ''}`,
          'url.path': path,
          'url.query': query,
        };
      },
    }),
  // trace_id/span_id on the log lines; the lines are not sent as OpenTelemetry logs
  pino: () => new PinoInstrumentation({ disableLogSending: true }),
};

const namesIn = (v: string | undefined) =>
  (v ?? '')
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);

/** The instrumentations the environment leaves on: all by default (e.g. `OTEL_NODE_DISABLED_INSTRUMENTATIONS=express`). */
export function instrumentationNames(env: NodeJS.ProcessEnv): string[] {
  const enabled = namesIn(env.OTEL_NODE_ENABLED_INSTRUMENTATIONS);
  const disabled = new Set(namesIn(env.OTEL_NODE_DISABLED_INSTRUMENTATIONS));
  return Object.keys(INSTRUMENTATIONS).filter(
    (n) => (enabled.length === 0 || enabled.includes(n)) && !disabled.has(n),
  );
}

/** Starts the SDK; its shutdown flushes what is buffered. */
export function startTracingSdk(opts: { serviceName: string; env: NodeJS.ProcessEnv }): RunningTracing {
  // constructed only when wanted: an instrumentation patches its module as soon as it is made
  const list = instrumentationNames(opts.env).map((n) => INSTRUMENTATIONS[n]!());
  // ESM: express, pg, ioredis and pino are imported (not required) by the apps, so import-in-the-middle's loader
  // hook must see them load. It wraps only the modules the instrumentations patch, leaving every other module
  // (tsx's TypeScript among them) alone; a module imported after this line is patched.
  const include = [...new Set(list.flatMap((i) => i.getModuleDefinitions().map((d) => d.name)))];
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, { data: { include } });

  const resource = defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: opts.serviceName }))
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the default name
    .merge(detectResources({ detectors: [processDetector, hostDetector, envDetector] }));
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
    // An attribute's value is cut at 1,024 characters unless OTEL_(SPAN_)ATTRIBUTE_VALUE_LENGTH_LIMIT says
    // otherwise: a statement's text is kilobytes long (the portfolio read's is 4 KB), and sending it whole with
    // every span took the traced bridge's portfolio read from 0.75× to 0.66× of its untraced req/s (measured
    // side by side); its name (db.postgresql.plan for a named statement) and first kilobyte say which it was.
    ...(opts.env.OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT || opts.env.OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT
      ? {}
      : { spanLimits: { attributeValueLengthLimit: ATTRIBUTE_VALUE_LIMIT } }),
  });
  // W3C traceparent (and baggage) in and out, AsyncLocalStorage for the active span
  provider.register();
  registerInstrumentations({ instrumentations: list, tracerProvider: provider });
  return {
    tracer: trace.getTracer('@pa/telemetry'),
    bullmq: new BullMQOtel({ tracerName: 'bullmq' }),
    api: { context, propagation },
    shutdown: () => provider.shutdown(),
  };
}
