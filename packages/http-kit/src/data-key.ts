import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

// Both apps keep secrets they must use again later (the gateway's platform keys, bot tokens and IMAP passwords;
// the platform's webhook signing secrets) encrypted with AES-256-GCM under a 32-byte data key: a copy of the
// database alone reveals none of them. The key comes from the environment, or is generated once and kept in the
// data directory so that `npm start` needs no setup.

/** A data key's value: 32 bytes written as 64 hex characters or as base64. `name` is the variable, for errors. */
export function parseDataKey(value: string, name: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  if (key.length !== 32) throw new Error(`${name} must be 32 bytes, as 64 hex characters or base64`);
  return key;
}

/**
 * The configured key when set. Otherwise a key generated once and kept (mode 0600) as `file` in the data
 * directory; `generated` tells the caller to warn that production should set the variable.
 */
export function resolveDataKey(
  configured: string | undefined,
  dataDir: string,
  opts: { name: string; file: string },
): { key: Buffer; generated: boolean } {
  if (configured) return { key: parseDataKey(configured, opts.name), generated: false };
  const file = path.join(dataDir, opts.file);
  try {
    return { key: parseDataKey(readFileSync(file, 'utf8').trim(), opts.name), generated: true };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  // Written whole under a name of its own, then linked into place: the key file appears complete or not at all.
  // (Created in place, another process could read it between its creation and its content, find it empty, and
  // fail to start.) Two processes on a fresh data directory (an app and its CLI, the gateway and its worker,
  // parallel tests): the first link wins and the other reads the winner's key.
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(draft, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(draft, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return { key: parseDataKey(readFileSync(file, 'utf8').trim(), opts.name), generated: true };
  } finally {
    unlinkSync(draft);
  }
  return { key, generated: true };
}

// Layout: version byte, 12-byte IV, 16-byte tag, ciphertext.
const VERSION = 1;

export function createKeyCipher(key: Buffer) {
  return {
    encrypt(plain: string): Uint8Array<ArrayBuffer> {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return new Uint8Array(Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]));
    },
    decrypt(sealed: Uint8Array): string {
      const buf = Buffer.from(sealed);
      if (buf[0] !== VERSION) throw new Error('unknown secret format');
      const decipher = createDecipheriv('aes-256-gcm', key, buf.subarray(1, 13));
      decipher.setAuthTag(buf.subarray(13, 29));
      return Buffer.concat([decipher.update(buf.subarray(29)), decipher.final()]).toString('utf8');
    },
  };
}
export type KeyCipher = ReturnType<typeof createKeyCipher>;
