// Tracing's switch and lifecycle, with nothing of the OpenTelemetry SDK in it: the SDK (tracing-sdk.ts) is
// imported only when tracing is on, so that a process with tracing off loads none of it.
//
// On when the standard OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set and neither
// OTEL_SDK_DISABLED=true nor OTEL_TRACES_EXPORTER=none says otherwise; the other standard variables
// (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER(_ARG), OTEL_BSP_*, OTEL_EXPORTER_OTLP_HEADERS)
// are read by the SDK itself.
//
// The instrumentations patch express, pg, ioredis, pino and http when those are first imported, so an entry
// point starts tracing before it imports anything else (see the apps' main.ts).

import type { Attributes, Context, Span } from '@opentelemetry/api';
import type { BullMQOtel } from 'bullmq-otel';
// types only (erased): the module itself is imported below, and only when tracing is on
import type { RunningTracing } from './tracing-sdk.ts';

export interface TracingOptions {
  /** service.name unless OTEL_SERVICE_NAME (or OTEL_RESOURCE_ATTRIBUTES) names another */
  serviceName: string;
}

let running: RunningTracing | null = null;

const isTrue = (v: string | undefined) => v?.trim().toLowerCase() === 'true';
const isSet = (v: string | undefined) => Boolean(v?.trim());

/** Whether the environment asks for traces. */
export function tracingWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  if (isTrue(env.OTEL_SDK_DISABLED)) return false;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return false;
  return isSet(env.OTEL_EXPORTER_OTLP_ENDPOINT) || isSet(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/** Whether this process records spans (tracing was started). Hand-written spans are skipped when it does not. */
export function tracingActive(): boolean {
  return running !== null;
}

/**
 * Starts tracing when the environment asks for it: the SDK, the OTLP/HTTP exporter behind a batch processor, the
 * instrumentations and their ESM hook. Whether it is on. Never throws: a process whose tracing cannot start
 * runs without it and says so on stderr (the logger is not made yet, and must not be: pino is instrumented).
 */
export async function startTracing(opts: TracingOptions): Promise<boolean> {
  if (running) return true;
  // the SDK reads the same variables from process.env
  if (!tracingWanted(process.env)) return false;
  try {
    const { startTracingSdk } = await import('./tracing-sdk.ts');
    running = startTracingSdk({ serviceName: opts.serviceName, env: process.env });
    return true;
  } catch (err) {
    process.stderr.write(
      `${opts.serviceName}: tracing could not start, running without it: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    return false;
  }
}

/**
 * Sends the spans still buffered and stops tracing; for the apps' clean shutdown (SIGTERM). Does nothing when
 * tracing is off; never throws (a collector that is away must not hold the shutdown past the exporter's timeout).
 */
export async function stopTracing(): Promise<void> {
  const r = running;
  running = null;
  await r?.shutdown().catch(() => {});
}

/** What code inside inSpan may say about its span; does nothing when tracing is off. */
export interface SpanNote {
  set(key: string, value: string | number | boolean): void;
  /** marks the span as failed (the operation ended in a handled failure, e.g. a tool answering ok: false) */
  fail(message?: string): void;
}

const NO_NOTE: SpanNote = { set() {}, fail() {} };
// @opentelemetry/api's SpanStatusCode.ERROR, written out so that this module imports nothing of OpenTelemetry
const STATUS_ERROR = 2;

function noteOf(span: Span): SpanNote {
  return {
    set: (key, value) => void span.setAttribute(key, value),
    fail: (message) => void span.setStatus({ code: STATUS_ERROR, message }),
  };
}

/**
 * Runs `fn` inside a span of its own (the active one while it runs, so that the HTTP, pg and ioredis spans made
 * meanwhile are its children); a thrown error marks it failed. For the phases no instrumentation names (a chat
 * turn's session store, provider and tool calls). With tracing off it is `fn(NO_NOTE)` and nothing more.
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes | undefined,
  fn: (note: SpanNote) => Promise<T>,
): Promise<T> {
  const r = running;
  if (!r) return fn(NO_NOTE);
  return r.tracer.startActiveSpan(name, attributes ? { attributes } : {}, async (span) => {
    try {
      return await fn(noteOf(span));
    } catch (err) {
      if (err instanceof Error) span.recordException(err);
      span.setStatus({ code: STATUS_ERROR, message: err instanceof Error ? err.message : String(err) });
      throw err;
    } finally {
      span.end();
    }
  });
}

type Next = (err?: unknown) => void;
// express's RequestHandler among others; written without express so that this package does not need it
type Middleware<Req, Res> = (req: Req, res: Res, next: Next) => unknown;

/**
 * A middleware in a span of its own, ended when it passes the request on or answers it (a rate limit: its Redis
 * call is then seen as the limit, not as part of the handler). With tracing off, the middleware itself.
 */
export function traceMiddleware<
  Req,
  Res extends { once(event: 'finish' | 'close', fn: () => void): unknown },
>(name: string, handler: Middleware<Req, Res>): Middleware<Req, Res> {
  const r = running;
  if (!r) return handler;
  return (req, res, next) => {
    // what follows the middleware runs beside its span, not inside it
    const outside = r.api.context.active();
    return r.tracer.startActiveSpan(name, (span) => {
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        span.end();
      };
      // refused: the middleware answered (a 429) instead of passing the request on; or the client went away
      res.once('finish', end);
      res.once('close', end);
      return handler(req, res, (err?: unknown) => {
        if (err)
          span.setStatus({ code: STATUS_ERROR, message: err instanceof Error ? err.message : String(err) });
        end();
        r.api.context.with(outside, () => next(err));
      });
    });
  };
}

/** BullMQ's `telemetry` option for a queue or a worker: undefined (no telemetry) when tracing is off. */
export function bullmqTelemetry(): BullMQOtel | undefined {
  return running?.bullmq;
}

/**
 * The active trace context as a W3C `traceparent` (and `tracestate`), to be kept with work done later elsewhere
 * (an outbox row); null when tracing is off or nothing is being traced.
 */
export function currentTraceContext(): Record<string, string> | null {
  const r = running;
  if (!r) return null;
  const carrier: Record<string, string> = {};
  r.api.propagation.inject(r.api.context.active(), carrier);
  return carrier.traceparent ? carrier : null;
}

/**
 * Runs `fn` with the context kept by currentTraceContext as its parent (work that continues a trace later: an
 * outbox delivery), inside a span of its own. Without a kept context it is inSpan.
 */
export function inSpanContinuing<T>(
  kept: Record<string, string> | null | undefined,
  name: string,
  attributes: Attributes | undefined,
  fn: (note: SpanNote) => Promise<T>,
): Promise<T> {
  const r = running;
  if (!r) return fn(NO_NOTE);
  if (!kept?.traceparent) return inSpan(name, attributes, fn);
  const parent: Context = r.api.propagation.extract(r.api.context.active(), kept);
  return r.api.context.with(parent, () => inSpan(name, attributes, fn));
}
