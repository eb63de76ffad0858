import http from 'node:http';
import https from 'node:https';
import type { LookupAddress } from 'node:dns';
import { Webhook } from 'standardwebhooks';
import { pinnedLookup } from './endpoint-address.ts';

// One signed POST of a delivery (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature over
// `id.timestamp.body`), connected to the vetted addresses only. Redirects are never followed (node:http does not),
// and the whole exchange — connect, headers, body — must finish within the timeout.

export type AttemptOutcome =
  | { kind: 'succeeded'; status: number }
  | { kind: 'gone'; status: 410 }
  | { kind: 'failed'; status: number | null; error: string };

export interface SignedRequest {
  url: URL;
  addresses: LookupAddress[];
  webhookId: string;
  body: string;
  secret: string;
  /** the `webhook-timestamp`: when this attempt is made (receivers reject old ones) */
  signedAt: Date;
  timeoutMs: number;
}

// Keep-alive sockets: at hundreds of deliveries a second to one receiver, a TLS handshake each would dominate.
// A pooled socket was connected through the vetted lookup of the request that opened it.
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

export function sendSigned(req: SignedRequest): Promise<AttemptOutcome> {
  const signature = new Webhook(req.secret).sign(req.webhookId, req.signedAt, req.body);
  const isHttps = req.url.protocol === 'https:';
  const request = isHttps ? https.request : http.request;
  return new Promise<AttemptOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const r = request(req.url, {
      method: 'POST',
      agent: isHttps ? agents['https:'] : agents['http:'],
      lookup: pinnedLookup(req.addresses) as never,
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(req.body),
        'user-agent': 'platform-bridge-webhooks/1',
        'webhook-id': req.webhookId,
        'webhook-timestamp': String(Math.floor(req.signedAt.getTime() / 1000)),
        'webhook-signature': signature,
      },
    });
    const timer = setTimeout(() => {
      finish({ kind: 'failed', status: null, error: `timed out after ${req.timeoutMs} ms` });
      r.destroy();
    }, req.timeoutMs);
    r.on('response', (res) => {
      const status = res.statusCode ?? 0;
      // the body is not read for anything; drained so that the socket can be reused
      res.resume();
      res.on('error', () => finish({ kind: 'failed', status, error: 'the response broke off' }));
      res.on('end', () => {
        if (status >= 200 && status < 300) finish({ kind: 'succeeded', status });
        else if (status === 410) finish({ kind: 'gone', status: 410 });
        else if (status >= 300 && status < 400) {
          finish({ kind: 'failed', status, error: `redirect (${status}) not followed` });
        } else finish({ kind: 'failed', status, error: `HTTP ${status}` });
      });
    });
    r.on('error', (err: NodeJS.ErrnoException) => {
      finish({ kind: 'failed', status: null, error: err.code ?? err.message });
    });
    r.end(req.body);
  });
}
