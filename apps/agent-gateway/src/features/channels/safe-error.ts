// What may be logged of a failure on a platform call. grammY's HttpError keeps the fetch error, whose message holds
// the request URL with the bot token (`/bot<token>/getMe`); a logged error object would carry it. So failures are
// logged as these few fields only, and any token-shaped text in them is cut out as well.
const TOKEN_IN_TEXT = /\b\d{3,20}:[A-Za-z0-9_-]{20,}\b/g;

export function scrub(text: string): string {
  return text.replace(TOKEN_IN_TEXT, '[redacted]').replace(/\/bot[^/\s]+\//g, '/bot[redacted]/');
}

export function describeError(err: unknown): { name: string; message: string; code?: string | number } {
  if (!(err instanceof Error)) return { name: 'unknown', message: scrub(String(err)) };
  const e = err as Error & { error_code?: unknown; code?: unknown; error?: { code?: unknown } };
  const code = e.error_code ?? e.code ?? e.error?.code;
  return {
    name: e.name,
    message: scrub(e.message),
    ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
  };
}
