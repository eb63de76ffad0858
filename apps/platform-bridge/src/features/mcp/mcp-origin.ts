import { Forbidden } from '@pa/http-kit';
import type { RequestHandler } from 'express';

// The MCP endpoint's Origin check, before the key is even looked at (the spec's defence against DNS rebinding): a
// request with an `Origin` not listed in MCP_ALLOWED_ORIGINS is refused with 403; a request without one (any
// client that is not a browser page) passes. An allowed origin gets CORS answers, so that a browser-based client
// on it can call: the preflight here, and the headers it may read on every answer.

const ALLOW_HEADERS =
  'Authorization, Content-Type, Accept, MCP-Protocol-Version, Mcp-Session-Id, Last-Event-ID';
const EXPOSE_HEADERS = 'Mcp-Session-Id, WWW-Authenticate, RateLimit, RateLimit-Policy, Retry-After';

export function mcpOriginCheck(allowed: readonly string[]): RequestHandler {
  const origins = new Set(allowed);
  return (req, res, next) => {
    const origin = req.get('origin');
    if (origin === undefined) {
      next();
      return;
    }
    res.vary('Origin');
    if (!origins.has(origin)) {
      res.setHeader('Cache-Control', 'no-store');
      throw new Forbidden(
        'origin-not-allowed',
        'This origin may not call the MCP endpoint; the operator lists the browser origins that may in MCP_ALLOWED_ORIGINS.',
      );
    }
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Expose-Headers', EXPOSE_HEADERS);
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Methods', 'POST');
      res.setHeader('Access-Control-Allow-Headers', ALLOW_HEADERS);
      res.setHeader('Access-Control-Max-Age', '600');
      res.status(204).end();
      return;
    }
    next();
  };
}
