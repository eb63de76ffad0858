import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

// An OpenTelemetry collector's OTLP/HTTP traces endpoint, in the test's process: POST /v1/traces with the JSON
// encoding (what @opentelemetry/exporter-trace-otlp-http sends), on 127.0.0.1 and a free port. It keeps every span
// it is sent, flattened, for the test to look through.

/** OTLP's span kinds (SpanKind + 1 in the wire encoding) */
export const SPAN_KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

export interface ReceivedSpan {
  /** the resource's service.name */
  service: string;
  /** the instrumentation scope, e.g. @opentelemetry/instrumentation-pg */
  scope: string;
  name: string;
  traceId: string;
  spanId: string;
  /** '' for a root span */
  parentSpanId: string;
  kind: number;
  attributes: Record<string, string | number | boolean>;
}

interface AnyValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface TracesRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: {
      scope?: { name?: string };
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: KeyValue[];
      }[];
    }[];
  }[];
}

function valueOf(v: AnyValue): string | number | boolean {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  return JSON.stringify(v);
}

const attributesOf = (list: KeyValue[] = []) =>
  Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  return (req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
}

export interface OtlpReceiver {
  /** the base URL, for OTEL_EXPORTER_OTLP_ENDPOINT (the exporter adds /v1/traces) */
  url: string;
  spans(): ReceivedSpan[];
  /** requests it could not read (not JSON, another path): none is expected */
  refused(): string[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const refused: string[] = [];
  const server = createServer((req, res) => {
    void bodyOf(req).then((body) => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        refused.push(`${req.method} ${req.url}`);
        res.writeHead(404).end();
        return;
      }
      let parsed: TracesRequest;
      try {
        parsed = JSON.parse(body) as TracesRequest;
      } catch {
        refused.push(`not JSON (${String(req.headers['content-type'])})`);
        res.writeHead(400).end();
        return;
      }
      for (const rs of parsed.resourceSpans ?? []) {
        const service = String(attributesOf(rs.resource?.attributes)['service.name'] ?? '');
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              service,
              scope: ss.scope?.name ?? '',
              name: s.name,
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId ?? '',
              kind: s.kind,
              attributes: attributesOf(s.attributes),
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => [...spans],
    refused: () => [...refused],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The spans of one trace, with ways to walk it. */
export function traceOf(all: readonly ReceivedSpan[], traceId: string) {
  const spans = all.filter((s) => s.traceId === traceId);
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const parentOf = (s: ReceivedSpan) => byId.get(s.parentSpanId);
  /** whether `ancestor` is above `s` in the trace */
  const under = (s: ReceivedSpan, ancestor: ReceivedSpan): boolean => {
    for (let p = parentOf(s); p; p = parentOf(p)) if (p.spanId === ancestor.spanId) return true;
    return false;
  };
  return { spans, parentOf, under };
}
