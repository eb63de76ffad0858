// Serves an in-process PGlite over the PostgreSQL wire protocol on a loopback port, for the CLI.
//
// pglite-socket's own PGLiteSocketServer runs each protocol message under PGlite's query mutex and
// lets go between messages. PGlite is a single session, so (measured, see the tests):
//  - an app query issued while a socket client is between BEGIN and COMMIT runs inside the client's
//    transaction, and the client's ROLLBACK silently undoes it;
//  - a socket client's statement issued while the app is inside db.transaction() runs inside the
//    app's transaction and is undone by the app's rollback (the query mutex is free between the
//    app's statements; only the transaction mutex is held);
//  - an app query can run between a client's Parse and Bind, and the client then executes the app's
//    statement (which is also why a client pool of more than one connection fails there).
// We reuse pglite-socket's connection handler (framing, SSL refusal, cancel requests) but give it our
// own queue: a client that sends a message takes PGlite's *transaction* mutex, which app queries and
// app transactions also take, and keeps it until the backend reports ReadyForQuery "idle". So a
// client's extended-protocol exchange and its whole transaction are atomic with respect to the app,
// other clients wait their turn, and the app's transactions are atomic with respect to clients.
import net from 'node:net';
import type { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketHandler, type PGLiteSocketHandlerOptions } from '@electric-sql/pglite-socket';
import { authenticateSocket, errorResponse } from './embedded-auth.ts';
import { holdTransactionMutex } from './embedded-session.ts';

const READY_FOR_QUERY = 0x5a; // 'Z'
const TX_IDLE = 0x49; // 'I'
const TERMINATE = 0x58; // 'X'
const SYNC = Uint8Array.from([0x53, 0, 0, 0, 4]);

function simpleQuery(sql: string): Uint8Array {
  const body = Buffer.from(`${sql}\0`, 'utf8');
  const msg = Buffer.alloc(5 + body.length);
  msg[0] = 0x51; // 'Q'
  msg.writeInt32BE(4 + body.length, 1);
  body.copy(msg, 5);
  return msg;
}

/** Follows backend messages across chunk boundaries and keeps the last ReadyForQuery status. */
export class ReadyForQueryTracker {
  #header = Buffer.alloc(5);
  #headerLen = 0;
  #remaining = 0;
  #type = 0;
  status: number | null = null;

  feed(chunk: Uint8Array): void {
    let i = 0;
    while (i < chunk.length) {
      if (this.#remaining > 0) {
        const n = Math.min(this.#remaining, chunk.length - i);
        if (this.#type === READY_FOR_QUERY) this.status = chunk[i + n - 1] ?? null;
        this.#remaining -= n;
        i += n;
        continue;
      }
      this.#header[this.#headerLen++] = chunk[i++] ?? 0;
      if (this.#headerLen === 5) {
        this.#type = this.#header[0] ?? 0;
        this.#remaining = this.#header.readInt32BE(1) - 4;
        this.#headerLen = 0;
      }
    }
  }
}

interface Job {
  handlerId: number;
  /** null: end this client's session (sync, roll back what it left open). */
  message: Uint8Array | null;
  onData: (data: Uint8Array) => void;
  resolve: (bytes: number) => void;
  reject: (err: Error) => void;
}

interface GateOptions {
  idleSessionTimeoutMs: number;
  onIdleSessionTimeout(handlerId: number): void;
  hasOtherClients(handlerId: number): boolean;
}

/** Stands in for pglite-socket's QueryQueueManager (same three methods the handler calls). */
export class SessionGate {
  readonly #db: PGlite;
  readonly #opts: GateOptions;
  #queue: Job[] = [];
  #holder: { handlerId: number; release: () => void } | null = null;
  #pumping = false;
  #idleTimer: NodeJS.Timeout | undefined;

  constructor(db: PGlite, opts: GateOptions) {
    this.#db = db;
    this.#opts = opts;
  }

  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    // PGlite ignores Terminate anyway; not queueing it avoids taking the database for a goodbye.
    if (message[0] === TERMINATE) return Promise.resolve(0);
    return new Promise((resolve, reject) => {
      this.#queue.push({ handlerId, message, onData, resolve, reject });
      void this.#pump();
    });
  }

  clearQueueForHandler(handlerId: number): void {
    this.#queue = this.#queue.filter((job) => {
      if (job.handlerId !== handlerId) return true;
      job.reject(new Error('Handler disconnected'));
      return false;
    });
  }

  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    if (this.#holder?.handlerId !== handlerId) return;
    await new Promise<number>((resolve, reject) => {
      this.#queue.push({ handlerId, message: null, onData: () => {}, resolve, reject });
      void this.#pump();
    });
  }

  getQueueLength(): number {
    return this.#queue.length;
  }

  get holder(): number | null {
    return this.#holder?.handlerId ?? null;
  }

  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      for (;;) {
        let job: Job | undefined;
        if (this.#holder) {
          const holderId = this.#holder.handlerId;
          const i = this.#queue.findIndex((j) => j.handlerId === holderId);
          if (i < 0) {
            this.#armIdleTimer(holderId);
            return;
          }
          clearTimeout(this.#idleTimer);
          job = this.#queue.splice(i, 1)[0];
        } else {
          if (this.#queue.length === 0) return;
          const release = await holdTransactionMutex(this.#db);
          // Whoever is first in line once the database is ours gets the session (FIFO).
          job = this.#queue.shift();
          if (!job) {
            release();
            continue;
          }
          this.#holder = { handlerId: job.handlerId, release };
        }
        if (job) await this.#run(job);
      }
    } finally {
      this.#pumping = false;
    }
  }

  async #run(job: Job): Promise<void> {
    const db = this.#db;
    const message = job.message;
    try {
      if (message) {
        const tracker = new ReadyForQueryTracker();
        let bytes = 0;
        await db.runExclusive(() =>
          db.execProtocolRawStream(message, {
            onRawData: (data) => {
              tracker.feed(data);
              bytes += data.length;
              job.onData(data);
            },
          }),
        );
        if (tracker.status === TX_IDLE) this.#releaseHolder();
        job.resolve(bytes);
      } else {
        await this.#endSession(job.handlerId);
        this.#releaseHolder();
        job.resolve(0);
      }
    } catch (err) {
      // A session that cannot be cleaned up must still not keep the database forever.
      if (!message) this.#releaseHolder();
      job.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  async #endSession(handlerId: number): Promise<void> {
    const db = this.#db;
    await db.runExclusive(async () => {
      // The client may have gone between Parse and Sync; Sync ends any half-done exchange.
      const tracker = new ReadyForQueryTracker();
      await db.execProtocolRawStream(SYNC, { onRawData: (d) => tracker.feed(d) });
      if (tracker.status !== TX_IDLE)
        await db.execProtocolRawStream(simpleQuery('ROLLBACK'), { onRawData: () => {} });
      // Named prepared statements outlive the client in the shared session and would clash with the
      // same names when it reconnects; only drop them when no other client might still use them.
      if (!this.#opts.hasOtherClients(handlerId)) {
        await db.execProtocolRawStream(simpleQuery('DEALLOCATE ALL'), { onRawData: () => {} });
      }
    });
  }

  #releaseHolder(): void {
    clearTimeout(this.#idleTimer);
    const holder = this.#holder;
    this.#holder = null;
    holder?.release();
  }

  // A client idle inside a transaction blocks the app; after a while it loses its connection (and
  // its transaction), like PostgreSQL's idle_in_transaction_session_timeout.
  #armIdleTimer(handlerId: number): void {
    clearTimeout(this.#idleTimer);
    if (this.#opts.idleSessionTimeoutMs <= 0) return;
    this.#idleTimer = setTimeout(
      () => this.#opts.onIdleSessionTimeout(handlerId),
      this.#opts.idleSessionTimeoutMs,
    );
    this.#idleTimer.unref();
  }
}

export interface EmbeddedSocketServerOptions {
  /** What a client must prove it knows (MD5 challenge) before it reaches the database; user `postgres`. */
  password: string;
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  maxConnections?: number;
  /** How long a client may sit inside a transaction without sending anything; 0 disables. */
  idleSessionTimeoutMs?: number;
}

export class EmbeddedSocketServer {
  readonly #db: PGlite;
  readonly #gate: SessionGate;
  readonly #host: string;
  readonly #port: number;
  readonly #maxConnections: number;
  readonly #password: string;
  readonly #clients = new Map<number, { handler: PGLiteSocketHandler; socket: net.Socket }>();
  #server: net.Server | null = null;
  #stopping = false;

  constructor(db: PGlite, opts: EmbeddedSocketServerOptions) {
    this.#db = db;
    this.#host = opts.host ?? '127.0.0.1';
    this.#port = opts.port ?? 0;
    this.#maxConnections = opts.maxConnections ?? 16;
    this.#password = opts.password;
    this.#gate = new SessionGate(db, {
      idleSessionTimeoutMs: opts.idleSessionTimeoutMs ?? 30_000,
      onIdleSessionTimeout: (id) => {
        const client = this.#clients.get(id);
        if (!client) return;
        console.warn(
          `embedded database: closing socket client #${id}, idle in a transaction for ${opts.idleSessionTimeoutMs ?? 30_000} ms (rolled back)`,
        );
        client.socket.destroy();
      },
      hasOtherClients: (id) => [...this.#clients.keys()].some((other) => other !== id),
    });
  }

  get gate(): SessionGate {
    return this.#gate;
  }

  get connections(): number {
    return this.#clients.size;
  }

  async start(): Promise<{ host: string; port: number }> {
    if (this.#server) throw new Error('already started');
    await this.#db.waitReady;
    const server = net.createServer((socket) => this.#onConnection(socket));
    this.#server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#port, this.#host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    // Not being able to accept a connection must not crash the app that owns the database.
    server.on('error', (err) => console.error('embedded database socket server error:', err));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('unexpected server address');
    return { host: this.#host, port: address.port };
  }

  /** Disconnects every client, rolling back what they left open; the database stays open. */
  async stop(): Promise<void> {
    this.#stopping = true;
    const server = this.#server;
    const closed = server ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
    const clients = [...this.#clients.values()];
    this.#clients.clear();
    await Promise.all(clients.map((c) => c.handler.detach(true)));
    await closed;
    this.#server = null;
  }

  #onConnection(socket: net.Socket): void {
    if (this.#stopping || this.#clients.size >= this.#maxConnections) {
      const why = this.#stopping ? 'the embedded database is shutting down' : 'too many connections';
      socket.on('error', () => {});
      socket.end(errorResponse(this.#stopping ? '57P01' : '53300', why));
      return;
    }
    // Until it has given the password, a client is nobody's: it does not count, and it reaches no database.
    socket.on('error', () => {});
    void authenticateSocket(socket, this.#password).then((startup) => {
      if (startup && !this.#stopping) this.#attach(socket, startup);
      else if (startup) socket.end(errorResponse('57P01', 'the embedded database is shutting down'));
    });
  }

  #attach(socket: net.Socket, startup: Buffer): void {
    const handler = new PGLiteSocketHandler({
      // The handler only calls enqueue/clearQueueForHandler/clearTransactionIfNeeded; the declared
      // type is pglite-socket's unexported class, hence the cast.
      queryQueue: this.#gate as unknown as PGLiteSocketHandlerOptions['queryQueue'],
      closeOnDetach: true,
    });
    const forget = () => this.#clients.delete(handler.handlerId);
    handler.addEventListener('close', forget);
    handler.addEventListener('error', forget);
    this.#clients.set(handler.handlerId, { handler, socket });
    handler
      .attach(socket)
      // The client's startup message, held back until its password was checked, now goes to PGlite (which
      // answers AuthenticationOk and the session's parameters) as if it had just arrived.
      .then(() => {
        socket.emit('data', startup);
      })
      .catch((err) => {
        forget();
        socket.destroy();
        console.error('embedded database: could not attach a socket client:', err);
      });
  }
}
