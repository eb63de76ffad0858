// Password authentication for the embedded database's loopback socket. PGlite itself accepts any user and
// password, and a loopback port is open to every local user, so the socket server asks for a password first
// (PostgreSQL's MD5 challenge: the password never crosses the socket, and the random salt makes a captured
// answer useless for the next connection). The password is generated once and kept in the data directory,
// readable by its owner only (0600), and the CLI reads it from there: whoever may read the data directory may
// use the database, nobody else.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import type net from 'node:net';
import path from 'node:path';

export const SOCKET_PASSWORD_FILE = 'socket-password';
export const SOCKET_USER = 'postgres';

const PROTOCOL_3 = 196608;
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const AUTH_TIMEOUT_MS = 10_000;

/** The data directory's socket password, made (0600) if it has none yet. */
export function ensureSocketPassword(dataDir: string): string {
  const file = path.join(dataDir, SOCKET_PASSWORD_FILE);
  try {
    fs.writeFileSync(file, `${randomBytes(24).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    fs.chmodSync(file, 0o600);
  }
  return readSocketPassword(dataDir);
}

/** The password a client of the data directory's socket needs (what `ensureSocketPassword` made). */
export function readSocketPassword(dataDir: string): string {
  return fs.readFileSync(path.join(dataDir, SOCKET_PASSWORD_FILE), 'utf8').trim();
}

const md5 = (s: string | Buffer) => createHash('md5').update(s).digest('hex');

/** What a PostgreSQL client answers to an MD5 challenge. */
export function md5Answer(user: string, password: string, salt: Buffer): string {
  return `md5${md5(Buffer.concat([Buffer.from(md5(password + user)), salt]))}`;
}

export function errorResponse(code: string, message: string): Buffer {
  const fields = Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${message}\0\0`, 'utf8');
  const msg = Buffer.alloc(5 + fields.length);
  msg[0] = 0x45; // 'E'
  msg.writeInt32BE(4 + fields.length, 1);
  fields.copy(msg, 5);
  return msg;
}

function startupParams(body: Buffer): Map<string, string> {
  const parts = body.subarray(8).toString('utf8').split('\0');
  const params = new Map<string, string>();
  for (let i = 0; i + 1 < parts.length && parts[i]; i += 2) params.set(parts[i]!, parts[i + 1]!);
  return params;
}

/**
 * Runs the start of a connection up to a checked password. Resolves with the bytes to hand to PGlite (the
 * client's startup message, and anything it sent after its password), or null when the client was turned away
 * (the socket is then closed).
 */
export function authenticateSocket(socket: net.Socket, password: string): Promise<Buffer | null> {
  return new Promise((resolve) => {
    let buf = Buffer.alloc(0);
    let startup: Buffer | null = null;
    let user = '';
    const salt = randomBytes(4);
    const finish = (result: Buffer | null, refusal?: Buffer) => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', onClose);
      if (refusal) socket.end(refusal);
      else if (!result) socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => finish(null), AUTH_TIMEOUT_MS);
    timer.unref();
    const onClose = () => finish(null);
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      for (;;) {
        if (!startup) {
          // Untyped messages: int32 length (itself included), int32 code, body.
          if (buf.length < 8) return;
          const len = buf.readInt32BE(0);
          if (len < 8 || len > 10_000) return finish(null, errorResponse('08P01', 'invalid startup packet'));
          if (buf.length < len) return;
          const msg = buf.subarray(0, len);
          buf = buf.subarray(len);
          const code = msg.readInt32BE(4);
          if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
            socket.write('N'); // no encryption on a loopback socket; the client goes on in the clear
            continue;
          }
          if (code !== PROTOCOL_3)
            return finish(null, errorResponse('08P01', 'unsupported protocol or request'));
          startup = Buffer.from(msg);
          user = startupParams(startup).get('user') ?? '';
          const challenge = Buffer.alloc(13);
          challenge[0] = 0x52; // 'R'
          challenge.writeInt32BE(12, 1);
          challenge.writeInt32BE(5, 5); // AuthenticationMD5Password
          salt.copy(challenge, 9);
          socket.write(challenge);
          continue;
        }
        // Typed message: 'p' PasswordMessage, int32 length, the answer as a C string.
        if (buf.length < 5) return;
        const len = buf.readInt32BE(1);
        if (buf[0] !== 0x70 || len < 5 || len > 1_000)
          return finish(null, errorResponse('08P01', 'expected a password message'));
        if (buf.length < 1 + len) return;
        const answer = buf.subarray(5, len).toString('utf8').replace(/\0$/, '');
        const rest = buf.subarray(1 + len);
        const expected = Buffer.from(md5Answer(user, password, salt));
        const given = Buffer.from(answer);
        const ok =
          user === SOCKET_USER && given.length === expected.length && timingSafeEqual(given, expected);
        if (!ok)
          return finish(
            null,
            errorResponse('28P01', `password authentication failed for user "${user.replace(/"/g, '')}"`),
          );
        return finish(Buffer.concat([startup, rest]));
      }
    };
    socket.on('data', onData);
    socket.on('close', onClose);
  });
}
