import { createServer, type IncomingHttpHeaders, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

// A loopback HTTP proxy in front of the real bridge, for the failures a network makes: each request is forwarded
// (and its answer passed back), forwarded with the answer then lost (the connection is dropped after the bridge
// has handled it), or answered by the proxy itself with a problem. Every request's headers are recorded, so a
// test sees which Idempotency-Key each attempt carried.

export type ProxyStep =
  | 'forward'
  /** the bridge handles the request, but its answer never reaches the client */
  | 'drop-answer'
  /** answered here with this status and problem code; the bridge never sees the request */
  | { status: number; code: string; retryAfter?: number };

export interface BridgeProxy {
  baseUrl: string;
  /** every request that reached the proxy, in order */
  requests: { method: string; path: string; headers: IncomingHttpHeaders }[];
  /** queues what the next requests get; once the queue is empty they are forwarded */
  script(...steps: ProxyStep[]): void;
  /**
   * Queues what the next requests whose path matches `path` get, before the general queue: for a test whose
   * gateway also makes other requests meanwhile (a bound worker's knowledge sync, say).
   */
  scriptFor(path: RegExp, ...steps: ProxyStep[]): void;
  close(): Promise<void>;
}

export async function startBridgeProxy(target: string): Promise<BridgeProxy> {
  const upstream = new URL(target);
  const queue: ProxyStep[] = [];
  const targeted: { path: RegExp; steps: ProxyStep[] }[] = [];
  const requests: BridgeProxy['requests'] = [];
  const nextStep = (url: string): ProxyStep => {
    const match = targeted.find((t) => t.steps.length > 0 && t.path.test(url));
    return match ? match.steps.shift()! : (queue.shift() ?? 'forward');
  };

  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers });
    const step = nextStep(req.url ?? '');
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (typeof step === 'object') {
        res.writeHead(step.status, {
          'content-type': 'application/problem+json',
          ...(step.retryAfter === undefined ? {} : { 'retry-after': String(step.retryAfter) }),
        });
        res.end(
          JSON.stringify({
            type: `/problems/${step.code}`,
            title: step.code,
            status: step.status,
            detail: `proxy: ${step.code}`,
            code: step.code,
          }),
        );
        return;
      }
      const forwarded = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: upstream.host },
        },
        (answer) => {
          const body: Buffer[] = [];
          answer.on('data', (c: Buffer) => body.push(c));
          answer.on('end', () => {
            if (step === 'drop-answer') {
              req.socket.destroy();
              return;
            }
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            res.end(Buffer.concat(body));
          });
        },
      );
      forwarded.on('error', () => req.socket.destroy());
      forwarded.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    script: (...steps) => void queue.push(...steps),
    scriptFor: (path, ...steps) => void targeted.push({ path, steps }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
