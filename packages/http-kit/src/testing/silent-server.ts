// A TCP listener that accepts connections and never says a word: what a hung database host, or a proxy in front of
// a dead one, looks like to a client. Stands in for PostgreSQL in the tests that a request cannot hang on it.
import net from 'node:net';

export interface SilentServer {
  port: number;
  /** How many connections it has accepted so far. */
  accepted(): number;
  close(): Promise<void>;
}

export async function startSilentServer(): Promise<SilentServer> {
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  const server = net.createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    // reads what it is sent and answers nothing
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    accepted: () => accepted,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
