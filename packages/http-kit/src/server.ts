import { randomUUID } from 'node:crypto';
import { createServer, type RequestListener, type Server, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { PROBLEM_TYPE_BASE } from './problem.ts';

// Requests Node's HTTP parser refuses (oversized headers, a bare LF, Content-Length with Transfer-Encoding...)
// never reach Express: Node answers them itself with an empty 400/431. This answers them as problem+json like
// every other error, then closes the connection (the parser cannot go on after such a request).

function statusOf(code: string | undefined): number {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return 431;
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return 408;
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return 413;
    default:
      return 400;
  }
}

/** The request path, if the bytes the parser saw start with a readable request line. */
function pathOf(raw: Buffer | undefined): string {
  const m = raw && /^[A-Z]{3,10} (\/[\x21-\x7e]{0,512}) HTTP\//.exec(raw.subarray(0, 600).toString('latin1'));
  return m ? m[1]!.split('?')[0]! : '/';
}

/** Answers the server's client errors (`clientError`) with a problem+json response instead of Node's empty one. */
export function answerClientErrors(server: Server): Server {
  server.on('clientError', (err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex) => {
    const response = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || response?.headersSent) {
      socket.destroy();
      return;
    }
    const status = statusOf(err.code);
    const title = STATUS_CODES[status] ?? 'Bad Request';
    const code =
      { 431: 'headers-too-large', 408: 'request-timeout', 413: 'payload-too-large' }[status] ?? 'bad-request';
    const requestId = randomUUID();
    const body = JSON.stringify({
      type: `${PROBLEM_TYPE_BASE}${code}`,
      title,
      status,
      detail:
        {
          431: 'The request headers are too large.',
          408: 'The request took too long to arrive.',
          413: 'The request has chunk extensions that are too large.',
        }[status] ?? 'The request is not valid HTTP/1.1.',
      instance: pathOf(err.rawPacket),
      code,
      request_id: requestId,
    });
    socket.end(
      [
        `HTTP/1.1 ${status} ${title}`,
        'Content-Type: application/problem+json; charset=utf-8',
        `Content-Length: ${Buffer.byteLength(body)}`,
        `X-Request-Id: ${requestId}`,
        'Cache-Control: no-store',
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
  });
  return server;
}

/**
 * Listens with `app` on host:port (0 for a free port), client errors answered as problem+json, and resolves once
 * the server accepts connections. Both apps' main.ts and their tests start servers with it.
 */
export function listen(app: RequestListener, port: number, host: string): Promise<Server> {
  const server = answerClientErrors(createServer(app));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
