import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

// A receiver that is "not ours": a loopback HTTP server that verifies each request with the standardwebhooks
// package, as any Standard Webhooks consumer would, and counts what it saw per webhook-id — including how many
// requests for one id were in flight at the same time.

export interface Received {
  webhookId: string;
  body: unknown;
  at: number;
}

export interface WebhookReceiver {
  url: string;
  /** verified deliveries, in arrival order (every request, duplicates included) */
  received: Received[];
  /** requests whose signature did not verify */
  rejected: number;
  /** requests seen per webhook-id */
  counts: Map<string, number>;
  /** the most requests for one webhook-id in flight at once, over all ids */
  maxConcurrentPerId: number;
  /** sets how the next requests are answered; default 204 at once */
  respond(fn: (req: IncomingMessage, res: ServerResponse, n: number) => void | Promise<void>): void;
  waitFor(predicate: () => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(secret: () => string): Promise<WebhookReceiver> {
  const state: WebhookReceiver = {
    url: '',
    received: [],
    rejected: 0,
    counts: new Map(),
    maxConcurrentPerId: 0,
    respond: (fn) => (responder = fn),
    waitFor: async (predicate, timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!predicate()) {
        if (Date.now() > deadline) throw new Error('the receiver did not see what was expected in time');
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  let responder: (req: IncomingMessage, res: ServerResponse, n: number) => void | Promise<void> = (
    _req,
    res,
  ) => {
    res.statusCode = 204;
    res.end();
  };
  const active = new Map<string, number>();
  let n = 0;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const id = String(req.headers['webhook-id'] ?? '');
      let body: unknown;
      try {
        body = new Webhook(secret()).verify(raw, req.headers as Record<string, string>);
      } catch {
        state.rejected++;
        res.statusCode = 401;
        res.end();
        return;
      }
      const now = (active.get(id) ?? 0) + 1;
      active.set(id, now);
      state.maxConcurrentPerId = Math.max(state.maxConcurrentPerId, now);
      state.counts.set(id, (state.counts.get(id) ?? 0) + 1);
      state.received.push({ webhookId: id, body, at: Date.now() });
      res.on('close', () => active.set(id, (active.get(id) ?? 1) - 1));
      void Promise.resolve(responder(req, res, ++n)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return state;
}
