// The OpenTelemetry collector of bench/observability.ts, in the bench's own process: an OTLP/HTTP traces endpoint
// (POST /v1/traces, the JSON encoding @opentelemetry/exporter-trace-otlp-http sends) on 127.0.0.1 and a free port,
// answering each export at once and counting its spans by the process that sent them (the resource's process.pid,
// which the SDK's process detector sets), so that the bench can tell which server under test exported what.
//
// It shares the load generator's CPU, so it does as little as it can: the first exports of each process are parsed
// in full (their span names are reported, and their count checks the cheap one); after that the spans of an
// export are counted by the occurrences of `"spanId":` in its bytes (a parent's id is `"parentSpanId":`, so it is not
// counted twice).
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

const SPAN_ID = Buffer.from('"spanId":');
const PID = /"key":"process\.pid","value":\{"intValue":"?(\d+)/;
/** exports parsed in full, per process */
const PARSED_PER_PROCESS = 20;

interface TracesRequest {
  resourceSpans?: { scopeSpans?: { scope?: { name?: string }; spans?: { name: string }[] }[] }[];
}

export interface SenderCounts {
  exports: number;
  spans: number;
  bytes: number;
  /** span names (scope: name) seen in the exports parsed in full, with their counts */
  names: Map<string, number>;
}

export interface OtlpSink {
  /** for OTEL_EXPORTER_OTLP_ENDPOINT (the exporter adds /v1/traces) */
  url: string;
  /** what a process (by pid) has exported so far; zeros when nothing */
  from(pid: number): SenderCounts;
  /** every sender's counts, by pid */
  all(): Map<number, SenderCounts>;
  /** requests that were not an OTLP/HTTP JSON export (none is expected), and parse checks that failed */
  problems(): string[];
  close(): Promise<void>;
}

function countOf(buf: Buffer, needle: Buffer): number {
  let n = 0;
  for (let i = buf.indexOf(needle); i !== -1; i = buf.indexOf(needle, i + needle.length)) n++;
  return n;
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  return req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
}

const empty = (): SenderCounts => ({ exports: 0, spans: 0, bytes: 0, names: new Map() });

export async function startOtlpSink(): Promise<OtlpSink> {
  const senders = new Map<number, SenderCounts>();
  const problems: string[] = [];
  const server = createServer((req, res) => {
    void bodyOf(req).then(
      (body) => {
        if (req.method !== 'POST' || req.url !== '/v1/traces' || body[0] !== 0x7b /* { */) {
          problems.push(`${req.method} ${req.url} (${String(req.headers['content-type'])})`);
          res.writeHead(404).end();
          return;
        }
        const pid = Number(PID.exec(body.subarray(0, 4096).toString('utf8'))?.[1] ?? 0);
        let counts = senders.get(pid);
        if (!counts) senders.set(pid, (counts = empty()));
        const spans = countOf(body, SPAN_ID);
        if (counts.exports < PARSED_PER_PROCESS) {
          const parsed = JSON.parse(body.toString('utf8')) as TracesRequest;
          let n = 0;
          for (const rs of parsed.resourceSpans ?? [])
            for (const ss of rs.scopeSpans ?? [])
              for (const s of ss.spans ?? []) {
                n++;
                const key = `${(ss.scope?.name ?? '').replace('@opentelemetry/', '')}: ${s.name}`;
                counts.names.set(key, (counts.names.get(key) ?? 0) + 1);
              }
          if (n !== spans) problems.push(`pid ${pid}: ${n} spans parsed, ${spans} counted`);
        }
        counts.exports++;
        counts.spans += spans;
        counts.bytes += body.length;
        // ExportTraceServiceResponse, all accepted
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      },
      (err: unknown) => {
        problems.push(`unreadable export: ${err instanceof Error ? err.message : String(err)}`);
        res.writeHead(400).end();
      },
    );
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    from: (pid) => senders.get(pid) ?? empty(),
    all: () => new Map(senders),
    problems: () => [...problems],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
