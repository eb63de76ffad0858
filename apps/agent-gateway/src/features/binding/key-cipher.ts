// Secrets the gateway must use later (platform keys, bot tokens, IMAP passwords) are stored encrypted with
// AES-256-GCM under GATEWAY_SECRET_KEY, by the cipher both apps share (@pa/http-kit's data-key.ts).
export { createKeyCipher, type KeyCipher } from '@pa/http-kit';
