import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

// Secrets the gateway must use later (platform keys, bot tokens) are stored encrypted with AES-256-GCM under
// GATEWAY_SECRET_KEY. Layout: version byte, 12-byte IV, 16-byte tag, ciphertext.
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
