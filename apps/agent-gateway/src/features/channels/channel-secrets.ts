import type { KeyCipher } from '../binding/key-cipher.ts';

/** A Telegram bot's token. */
export interface TelegramSecrets {
  botToken: string;
}

/** A WhatsApp Cloud API number's credentials. */
export interface WhatsAppSecrets {
  accessToken: string;
  appSecret: string;
}

export type ChannelSecrets = Record<string, string>;

// A channel's secrets are sealed together as one AES-256-GCM ciphertext of their JSON (GATEWAY_SECRET_KEY), so
// that a type may keep several (WhatsApp's access token and app secret) in the one column. They are opened only
// to talk to the platform, and never leave the process.
export function createChannelSecrets(cipher: KeyCipher) {
  return {
    seal: (secrets: ChannelSecrets): Uint8Array<ArrayBuffer> => cipher.encrypt(JSON.stringify(secrets)),
    open: <S extends ChannelSecrets = ChannelSecrets>(sealed: Uint8Array): S =>
      JSON.parse(cipher.decrypt(sealed)) as S,
  };
}
export type ChannelSecretsBox = ReturnType<typeof createChannelSecrets>;
