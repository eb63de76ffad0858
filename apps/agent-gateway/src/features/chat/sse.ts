import type { Response } from 'express';

// A server-sent event stream: numbered `id:` lines, JSON `data:` events, a `: ping` comment to keep proxies
// from timing the connection out, and `data: [DONE]` to end it. Never compressed or buffered.
export function openEventStream(res: Response, opts: { pingMs: number }) {
  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache, no-transform');
  res.setHeader('X-Accel-Buffering', 'no');
  res.setHeader('Connection', 'keep-alive');
  res.flushHeaders();
  res.socket?.setNoDelay(true);

  let nextId = 0;
  const ping = setInterval(() => {
    if (!res.writableEnded) res.write(': ping\n\n');
  }, opts.pingMs);
  ping.unref();
  res.on('close', () => clearInterval(ping));

  return {
    send(data: unknown): void {
      if (res.writableEnded) return;
      res.write(`id: ${nextId++}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    done(): void {
      clearInterval(ping);
      if (res.writableEnded) return;
      res.write(`id: ${nextId++}\ndata: [DONE]\n\n`);
      res.end();
    },
  };
}
