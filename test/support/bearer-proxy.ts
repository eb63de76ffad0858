// A loopback HTTP proxy that adds `Authorization: Bearer <key>` to every request it forwards. The MCP conformance
// suite (0.1.16) connects with a bare URL and has no option for a header, while the bridge's MCP endpoint, like any
// endpoint holding a tenant's data, wants a key on every request; the proxy stands where a client's configured
// header would be. Everything else passes untouched both ways: method, path, the other headers (Host and Origin
// included, so that the bridge's Origin check sees what the client sent) and streamed bodies (SSE).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BearerProxy {
  /** e.g. `http://127.0.0.1:43123` */
  baseUrl: string;
  /** how many requests went through (a check that the client did reach the bridge through it) */
  readonly forwarded: number;
  close(): Promise<void>;
}

/**
 * `to` names the bridge and the key, asked on each request: the proxy may start first, so that the bridge can be
 * told the proxy's origin (MCP_ALLOWED_ORIGINS) when it starts.
 */
export async function startBearerProxy(to: () => { baseUrl: string; key: string }): Promise<BearerProxy> {
  let forwarded = 0;
  const server = http.createServer((req, res) => {
    forwarded++;
    const { baseUrl, key } = to();
    const target = new URL(baseUrl);
    const headers = { ...req.headers };
    headers.authorization ??= `Bearer ${key}`;
    const upstream = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers,
        agent: false,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(res);
      },
    );
    upstream.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`bearer proxy: ${err.message}`);
    });
    // the client went away (a cancelled stream): so does the request to the bridge
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    get forwarded() {
      return forwarded;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
