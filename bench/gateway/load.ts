// Load generation for the gateway benchmark: POST /api/chat on the shared autocannon runner (bench/lib/load.ts),
// and a small SSE client built on node:http for the event streams (time to first event, events/s of looping
// clients, long-lived idle streams).
// The SSE client counts events without decoding text: every event both servers send starts with
// `id: <n>\ndata: `, so it counts occurrences of `\ndata: ` across chunk boundaries.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { httpRequest, type LoadResult, loadTest } from '../lib/load.ts';
import { type LatencyStats, latencyStats } from '../lib/stats.ts';

// ---- POST /api/chat ---------------------------------------------------------------------------------------

/**
 * autocannon against POST /api/chat with a fixed message; each request takes the next of `sessions` session
 * ids in turn (`<sessionPrefix><i>`), so that every session's history grows slowly, as with real users.
 */
export function chatLoad(opts: {
  baseUrl: string;
  connections: number;
  durationS: number;
  message: string;
  sessions: number;
  sessionPrefix: string;
  /** sent with every request (e.g. a device token) */
  headers?: Record<string, string>;
}): Promise<LoadResult> {
  let next = 0;
  return loadTest({
    url: opts.baseUrl,
    connections: opts.connections,
    durationS: opts.durationS,
    requests: [
      {
        method: 'POST',
        path: '/api/chat',
        headers: { 'content-type': 'application/json', ...opts.headers },
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({
            message: opts.message,
            sessionId: `${opts.sessionPrefix}${next++ % opts.sessions}`,
          }),
        }),
      },
    ],
  });
}

export const postJson = (url: string, body: unknown) =>
  httpRequest(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

// ---- SSE client -------------------------------------------------------------------------------------------

const NEEDLE = Buffer.from('\ndata: ');

/** Counts `\ndata: ` in a byte stream delivered in chunks. */
export class EventCounter {
  private carry: Buffer = Buffer.alloc(0);
  count = 0;

  /** Returns how many events began in this chunk. */
  push(chunk: Buffer): number {
    const buf = this.carry.length ? Buffer.concat([this.carry, chunk]) : chunk;
    let found = 0;
    for (let i = buf.indexOf(NEEDLE); i !== -1; i = buf.indexOf(NEEDLE, i + NEEDLE.length)) found++;
    this.carry = Buffer.from(buf.subarray(Math.max(0, buf.length - (NEEDLE.length - 1))));
    this.count += found;
    return found;
  }
}

export interface StreamResult {
  status: number;
  /** request start to the first `data:` event, ms */
  firstEventMs: number;
  /** request start to the end of the response, ms */
  totalMs: number;
  events: number;
  /** the whole body, when asked for */
  body?: string;
  headers: http.IncomingHttpHeaders;
}

/** Opens one stream and reads it to the end. `onEvents` hears of every event as it arrives. */
export function readStream(
  url: string,
  agent: http.Agent,
  opts: { keepBody?: boolean; onEvents?: (n: number) => void } = {},
): Promise<StreamResult> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent }, (res) => {
      const counter = new EventCounter();
      const parts: Buffer[] = [];
      let firstEventMs = NaN;
      res.on('data', (chunk: Buffer) => {
        const n = counter.push(chunk);
        if (n > 0) {
          if (Number.isNaN(firstEventMs)) firstEventMs = performance.now() - started;
          opts.onEvents?.(n);
        }
        if (opts.keepBody || res.statusCode !== 200) parts.push(chunk);
      });
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          firstEventMs,
          totalMs: performance.now() - started,
          events: counter.count,
          headers: res.headers,
          ...(opts.keepBody || res.statusCode !== 200 ? { body: Buffer.concat(parts).toString('utf8') } : {}),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

export interface StreamLoadResult {
  clients: number;
  durationS: number;
  /** `data:` events (including `[DONE]`) received inside the measured window */
  events: number;
  eventsPerS: number;
  /** streams that ended inside the measured window */
  streams: number;
  streamsPerS: number;
  /** open-to-end time of those streams */
  streamMs: LatencyStats;
  firstEventMs: LatencyStats;
  non200: number;
  errors: number;
}

/**
 * `clients` loops, each opening a stream, reading it to `[DONE]` and opening the next, for `warmupS` + `durationS`
 * seconds; only what arrives in the last `durationS` seconds counts.
 */
export async function streamLoad(opts: {
  streamUrl: (i: number) => string;
  clients: number;
  durationS: number;
  warmupS: number;
  /** called when the measured window starts */
  onMeasuring?: () => void;
}): Promise<StreamLoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.clients });
  let measuring = false;
  let stopping = false;
  let events = 0;
  let non200 = 0;
  let errors = 0;
  let next = 0;
  const streamMs: number[] = [];
  const firstEventMs: number[] = [];
  const onEvents = (n: number) => {
    if (measuring) events += n;
  };

  const loop = async () => {
    while (!stopping) {
      const startedInWindow = measuring;
      try {
        const r = await readStream(opts.streamUrl(next++), agent, { onEvents });
        if (r.status !== 200) non200++;
        else if (measuring && startedInWindow) {
          streamMs.push(r.totalMs);
          firstEventMs.push(r.firstEventMs);
        }
      } catch {
        errors++;
      }
    }
  };

  const loops = Array.from({ length: opts.clients }, loop);
  await new Promise((r) => setTimeout(r, opts.warmupS * 1000));
  opts.onMeasuring?.();
  measuring = true;
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, opts.durationS * 1000));
  measuring = false;
  const elapsedS = (performance.now() - t0) / 1000;
  stopping = true;
  await Promise.all(loops);
  agent.destroy();
  return {
    clients: opts.clients,
    durationS: elapsedS,
    events,
    eventsPerS: events / elapsedS,
    streams: streamMs.length,
    streamsPerS: streamMs.length / elapsedS,
    streamMs: latencyStats(streamMs),
    firstEventMs: latencyStats(firstEventMs),
    non200,
    errors,
  };
}

/**
 * Time to first event, one stream at a time on a keep-alive connection per server, alternating between the
 * servers request by request so that both see the same machine conditions. Each stream is read to its end
 * before the next one starts.
 */
export async function sequentialFirstEvent(
  targets: { name: string; streamUrl: (i: number) => string }[],
  opts: { warmup: number; samples: number },
): Promise<Record<string, { firstEventMs: LatencyStats; streamMs: LatencyStats; non200: number }>> {
  const agents = targets.map(() => new http.Agent({ keepAlive: true, maxSockets: 1 }));
  const first = targets.map((): number[] => []);
  const total = targets.map((): number[] => []);
  const non200 = targets.map(() => 0);
  for (let i = 0; i < opts.warmup + opts.samples; i++) {
    for (const [t, target] of targets.entries()) {
      const r = await readStream(target.streamUrl(i), agents[t]!);
      if (r.status !== 200) {
        non200[t]!++;
        continue;
      }
      if (i >= opts.warmup) {
        first[t]!.push(r.firstEventMs);
        total[t]!.push(r.totalMs);
      }
    }
  }
  agents.forEach((a) => a.destroy());
  return Object.fromEntries(
    targets.map((target, t) => [
      target.name,
      { firstEventMs: latencyStats(first[t]!), streamMs: latencyStats(total[t]!), non200: non200[t]! },
    ]),
  );
}

// ---- idle streams -----------------------------------------------------------------------------------------

export interface IdleStreams {
  /** streams that answered 200 and received their first event */
  open: number;
  failed: { status: number; body: string }[];
  /** first event of each open stream, ms after it was requested */
  firstEventMs: LatencyStats;
  /** time to get all of them open, ms */
  openingMs: number;
  /** events received on all the streams so far */
  events(): number;
  /** streams the server ended (it should not while they are held) */
  ended(): number;
  /** destroys every socket, as browsers going away would */
  closeAll(): void;
}

/**
 * Opens `count` streams, `concurrency` at a time until each has its first event (the server's listen backlog
 * is finite), and keeps them open. Each stream is its own TCP connection.
 */
export async function openIdleStreams(opts: {
  streamUrl: (i: number) => string;
  count: number;
  concurrency: number;
  timeoutMs: number;
}): Promise<IdleStreams> {
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const requests: http.ClientRequest[] = [];
  const failed: { status: number; body: string }[] = [];
  const firstEventMs: number[] = [];
  let events = 0;
  let ended = 0;
  let next = 0;
  let closing = false;
  const started = performance.now();

  const openOne = (i: number) =>
    new Promise<void>((resolve) => {
      const t0 = performance.now();
      const timer = setTimeout(() => {
        failed.push({ status: 0, body: 'no first event in time' });
        resolve();
      }, opts.timeoutMs);
      const req = http.get(opts.streamUrl(i), { agent }, (res) => {
        const counter = new EventCounter();
        const parts: Buffer[] = [];
        res.on('data', (chunk: Buffer) => {
          if (res.statusCode !== 200) {
            parts.push(chunk);
            return;
          }
          const n = counter.push(chunk);
          events += n;
          if (n > 0 && counter.count === n) {
            firstEventMs.push(performance.now() - t0);
            clearTimeout(timer);
            resolve();
          }
        });
        res.on('end', () => {
          ended++;
          if (res.statusCode !== 200) {
            clearTimeout(timer);
            failed.push({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString('utf8') });
            resolve();
          }
        });
        res.on('error', () => {});
      });
      req.on('error', (err) => {
        if (req.destroyed && closing) return;
        clearTimeout(timer);
        failed.push({ status: 0, body: err.message });
        resolve();
      });
      requests.push(req);
    });

  const worker = async () => {
    while (next < opts.count) await openOne(next++);
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  const openingMs = performance.now() - started;

  return {
    open: firstEventMs.length,
    failed,
    firstEventMs: latencyStats(firstEventMs),
    openingMs,
    events: () => events,
    ended: () => ended,
    closeAll() {
      closing = true;
      for (const req of requests) req.destroy();
      agent.destroy();
    },
  };
}
