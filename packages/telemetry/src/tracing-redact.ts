// What a span may say about a URL. Query strings carry what people typed (the chat stream's `message`) and, by
// mistake, keys; a Telegram Bot API path carries the bot's token (`/bot<id>:<secret>/sendMessage`). So a span
// keeps the query's parameter names with their values replaced, and a bot token's secret is replaced too.

export const REDACTED = 'REDACTED';

// `bot123456:AAH…` as the Bot API spells it in the path
const BOT_TOKEN = /\/bot\d+:[^/?#]+/g;

/** `a=1&b=x` → `a=REDACTED&b=REDACTED` (the names stay: they say which kind of request it was). */
export function redactQuery(query: string): string {
  const q = query.startsWith('?') ? query.slice(1) : query;
  if (!q) return '';
  return q
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq < 0 ? pair : `${pair.slice(0, eq)}=${REDACTED}`;
    })
    .join('&');
}

/** A path with any bot token's secret replaced. */
export function redactPath(path: string): string {
  return path.replace(BOT_TOKEN, `/bot${REDACTED}`);
}

/** A full URL (or a path with its query) with the path's secrets and every query value replaced. */
export function redactUrl(url: string): string {
  const hash = url.indexOf('#');
  const noHash = hash < 0 ? url : url.slice(0, hash);
  const q = noHash.indexOf('?');
  if (q < 0) return redactPath(noHash);
  const query = redactQuery(noHash.slice(q + 1));
  return `${redactPath(noHash.slice(0, q))}${query ? `?${query}` : ''}`;
}
