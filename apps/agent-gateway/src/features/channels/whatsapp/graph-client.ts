// The only code that talks to Meta's Graph API (the WhatsApp Cloud API), at WHATSAPP_API_BASE_URL (the version
// is part of it: `https://graph.facebook.com/v21.0`). Two calls are enough: reading the phone number (to check
// the credentials when a channel is connected) and sending a text message. The access token travels in the
// Authorization header only, so it never appears in a URL; every failure is one GraphError whose message is ours
// or Meta's `error.message`, with the token scrubbed from it should Meta ever quote it.

const TIMEOUT_MS = 10_000;

export type GraphErrorKind =
  | 'unauthorized' // 401, or error code 190 (token invalid or expired)
  | 'rejected' // another 4xx: an unknown phone number id, a malformed message, a recipient out of reach
  | 'rate-limited' // 429, or codes 4 / 80007 / 130429 / 131056
  | 'unavailable'; // network error, timeout, 5xx, an answer that is not the Graph API's

export class GraphError extends Error {
  constructor(
    readonly kind: GraphErrorKind,
    message: string,
    readonly status: number | null = null,
    /** Meta's `error.code` (190, 100, 130429…) when it answered one */
    readonly code: number | null = null,
  ) {
    super(message);
    this.name = 'GraphError';
  }
}

export interface PhoneNumberInfo {
  id: string;
  displayPhoneNumber: string | null;
  verifiedName: string | null;
}

const RATE_LIMIT_CODES = new Set([4, 80007, 130429, 131056]);

export function createGraphClient(deps: { baseUrl: string; timeoutMs?: number }) {
  const base = deps.baseUrl.replace(/\/+$/, '');
  const timeoutMs = deps.timeoutMs ?? TIMEOUT_MS;

  async function call(
    method: 'GET' | 'POST',
    path: string,
    token: string,
    body?: unknown,
  ): Promise<Record<string, unknown>> {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'error',
      });
    } catch (err) {
      const timedOut = (err as { name?: string }).name === 'TimeoutError';
      throw new GraphError(
        'unavailable',
        timedOut ? `The Graph API did not answer within ${timeoutMs} ms.` : 'The Graph API is unreachable.',
      );
    }
    const parsed = await res.json().then(
      (v: unknown) => (v && typeof v === 'object' ? (v as Record<string, unknown>) : null),
      () => null,
    );
    if (res.ok && parsed) return parsed;
    throw graphError(res.status, parsed, token);
  }

  return {
    /** The phone number the token may use; a GraphError `unauthorized` or `rejected` says the credentials are not. */
    async phoneNumber(phoneNumberId: string, token: string): Promise<PhoneNumberInfo> {
      const r = await call(
        'GET',
        `/${encodeURIComponent(phoneNumberId)}?fields=display_phone_number,verified_name`,
        token,
      );
      return {
        id: typeof r.id === 'string' ? r.id : phoneNumberId,
        displayPhoneNumber: typeof r.display_phone_number === 'string' ? r.display_phone_number : null,
        verifiedName: typeof r.verified_name === 'string' ? r.verified_name : null,
      };
    },

    /**
     * Marks a received message read and shows "typing…" in its chat, until the reply arrives or 25 s pass
     * (WhatsApp's typing indicator belongs to a received message).
     */
    async typing(phoneNumberId: string, token: string, messageId: string): Promise<void> {
      await call('POST', `/${encodeURIComponent(phoneNumberId)}/messages`, token, {
        messaging_product: 'whatsapp',
        status: 'read',
        message_id: messageId,
        typing_indicator: { type: 'text' },
      });
    },

    /** Sends one plain-text message; returns Meta's message id (wamid.…). */
    async sendText(phoneNumberId: string, token: string, to: string, body: string): Promise<string> {
      const r = await call('POST', `/${encodeURIComponent(phoneNumberId)}/messages`, token, {
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to,
        type: 'text',
        text: { preview_url: false, body },
      });
      const messages = r.messages as { id?: unknown }[] | undefined;
      const id = Array.isArray(messages) ? messages[0]?.id : undefined;
      if (typeof id !== 'string')
        throw new GraphError('unavailable', 'The Graph API answered without a message id.');
      return id;
    },
  };
}
export type GraphClient = ReturnType<typeof createGraphClient>;

function graphError(status: number, body: Record<string, unknown> | null, token: string): GraphError {
  const e = (body?.error ?? null) as { message?: unknown; code?: unknown } | null;
  const code = typeof e?.code === 'number' ? e.code : null;
  const said = typeof e?.message === 'string' ? scrub(e.message, token).slice(0, 300) : null;
  if (!e || status >= 500) {
    return new GraphError(
      'unavailable',
      `The Graph API answered ${status}${said ? `: ${said}` : ''}.`,
      status,
      code,
    );
  }
  const message = `The Graph API refused the call (${status}${code === null ? '' : `, code ${code}`})${said ? `: ${said}` : ''}.`;
  if (status === 401 || code === 190) return new GraphError('unauthorized', message, status, code);
  if (status === 429 || (code !== null && RATE_LIMIT_CODES.has(code)))
    return new GraphError('rate-limited', message, status, code);
  return new GraphError('rejected', message, status, code);
}

function scrub(text: string, token: string): string {
  return token ? text.split(token).join('[redacted]') : text;
}
