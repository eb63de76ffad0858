// For tests (`@pa/http-kit/testing`): bytes no HTTP client would send, on a fresh socket, to see what the
// server itself answers to what its parser refuses.
import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  /** the status line and headers, as sent */
  head: string;
  body: string;
}

/** Writes `bytes` on a new connection and reads everything the server sends until it closes. */
export function rawRequest(baseUrl: string, bytes: string): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    socket.setTimeout(5_000, () => socket.destroy(new Error('no answer within 5 s')));
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const split = raw.indexOf('\r\n\r\n');
      const head = split === -1 ? raw : raw.slice(0, split);
      resolve({ status: Number(head.split(' ')[1]), head, body: split === -1 ? '' : raw.slice(split + 4) });
    });
  });
}
