import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { scaled } from '@pa/http-kit/testing';

// A loopback WhatsApp Cloud API (Meta's Graph API) for the tests, speaking its real HTTP shape:
// - `GET /{version}/{phoneNumberId}` with `Authorization: Bearer <access token>` answers the number's
//   `{verified_name, display_phone_number, id, quality_rating}`;
// - `POST /{version}/{phoneNumberId}/messages` with `{messaging_product: "whatsapp", to, type: "text", text: {body}}`
//   answers `{messaging_product, contacts: [{input, wa_id}], messages: [{id: "wamid.…"}]}`; the same path with
//   `{status: "read", message_id, typing_indicator: {type: "text"}}` marks a received message read and shows typing;
// - errors are `{error: {message, type, code, error_subcode?, fbtrace_id}}`: 401 / code 190 for a bad token,
//   400 / code 100 for an unknown object or a malformed message, 429 / code 130429 when rate-limited.
// And Meta's side of the webhook: the verification handshake (`hub.mode`, `hub.verify_token`, `hub.challenge`)
// and notifications POSTed with `X-Hub-Signature-256: sha256=<HMAC-SHA256 of the raw body with the app secret>`.
// Like Meta, the fake escapes non-ASCII characters and `/` in the JSON it sends (`\u00e9`, `\/`), so that a
// receiver that re-serialises the parsed body instead of hashing the raw bytes gets a different signature.

export const GRAPH_VERSION = 'v21.0';

export interface FakeNumber {
  phoneNumberId: string;
  displayPhoneNumber: string;
  verifiedName: string;
  accessToken: string;
  appSecret: string;
  /** the WhatsApp Business Account the number belongs to (entry[].id in notifications) */
  wabaId: string;
}

export interface SentWhatsApp {
  phoneNumberId: string;
  to: string;
  body: string;
  previewUrl: boolean;
  messageId: string;
  at: number;
}

/** A received message marked read with the typing indicator (`status: "read"`, `typing_indicator`). */
export interface TypingShown {
  phoneNumberId: string;
  messageId: string;
  at: number;
}

export interface GraphCall {
  method: string;
  path: string;
  /** the bearer token the call carried (tests assert on it; never print it) */
  token: string | undefined;
  body: unknown;
  at: number;
}

interface NumberState {
  number: FakeNumber;
  webhook: { url: string; verifyToken: string } | null;
}

type Failure =
  | { kind: 'down' }
  | {
      kind: 'error';
      path: 'messages' | 'number';
      status: number;
      code: number;
      message: string;
      times: number;
    };

export class FakeWhatsApp {
  readonly calls: GraphCall[] = [];
  readonly sent: SentWhatsApp[] = [];
  readonly typing: TypingShown[] = [];
  /** ids of the messages users sent (in notifications): what `status: "read"` may name */
  private readonly received = new Set<string>();
  private readonly numbers = new Map<string, NumberState>();
  private failures: Failure[] = [];
  private nextNumber = 106_540_352_000;
  private sentWaiters = new Set<() => void>();

  private constructor(
    private readonly server: Server,
    /** the Graph API root with its version, as WHATSAPP_API_BASE_URL takes it */
    readonly baseUrl: string,
  ) {}

  static async start(): Promise<FakeWhatsApp> {
    const holder: { fake?: FakeWhatsApp } = {};
    const server = createServer((req, res) => void holder.fake!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    holder.fake = new FakeWhatsApp(server, `http://127.0.0.1:${port}/${GRAPH_VERSION}`);
    return holder.fake;
  }

  /** A business phone number Meta knows, with its access token and its app's secret. */
  addNumber(verifiedName = 'Test Lettings'): FakeNumber {
    const id = this.nextNumber++;
    const number: FakeNumber = {
      phoneNumberId: String(id),
      displayPhoneNumber: `+44 7700 ${String(id).slice(-6, -3)} ${String(id).slice(-3)}`,
      verifiedName,
      accessToken: `EAAG${randomBytes(48).toString('base64url')}`,
      appSecret: randomBytes(16).toString('hex'),
      wabaId: String(id + 5_000_000),
    };
    this.numbers.set(number.phoneNumberId, { number, webhook: null });
    return number;
  }

  /**
   * What the app's dashboard does when a callback URL is saved: Meta GETs it with `hub.mode=subscribe`, the verify
   * token and a random challenge, and keeps the URL only if the challenge comes back. Returns the response.
   */
  async subscribe(
    number: FakeNumber,
    webhook: { url: string; verifyToken: string },
  ): Promise<{ status: number; body: string; contentType: string | null }> {
    const challenge = String(Math.floor(Math.random() * 1e9));
    const url = new URL(webhook.url);
    url.searchParams.set('hub.mode', 'subscribe');
    url.searchParams.set('hub.verify_token', webhook.verifyToken);
    url.searchParams.set('hub.challenge', challenge);
    const res = await fetch(url);
    const body = await res.text();
    if (res.status === 200 && body === challenge) this.state(number).webhook = webhook;
    return { status: res.status, body, contentType: res.headers.get('content-type') };
  }

  /** A notification as Meta builds it for a text message from `from` (a WhatsApp id: the number, digits only). */
  textNotification(
    number: FakeNumber,
    from: { waId: string; name?: string },
    text: string,
    messageId = `wamid.${randomBytes(24).toString('base64url')}`,
  ): Record<string, unknown> {
    this.received.add(messageId);
    return this.notification(number, {
      contacts: [{ profile: { name: from.name ?? 'Sam Tenant' }, wa_id: from.waId }],
      messages: [
        {
          from: from.waId,
          id: messageId,
          timestamp: String(Math.floor(Date.now() / 1000)),
          type: 'text',
          text: { body: text },
        },
      ],
    });
  }

  /** The `value` of one change wrapped as Meta wraps it: object, entry (the WABA), changes, field "messages". */
  notification(number: FakeNumber, value: Record<string, unknown>): Record<string, unknown> {
    return {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: number.wabaId,
          changes: [
            {
              value: {
                messaging_product: 'whatsapp',
                metadata: {
                  display_phone_number: number.displayPhoneNumber.replace(/\D/g, ''),
                  phone_number_id: number.phoneNumberId,
                },
                ...value,
              },
              field: 'messages',
            },
          ],
        },
      ],
    };
  }

  /** A user writes `text` to the number: the signed notification is POSTed to its webhook. Returns it and the status. */
  async userWrites(
    number: FakeNumber,
    from: { waId: string; name?: string },
    text: string,
  ): Promise<{ status: number; messageId: string; notification: Record<string, unknown> }> {
    const notification = this.textNotification(number, from, text);
    const status = await this.deliver(number, notification);
    const change = (notification.entry as { changes: { value: { messages: { id: string }[] } }[] }[])[0]!;
    return { status, messageId: change.changes[0]!.value.messages[0]!.id, notification };
  }

  /**
   * POSTs a notification to the number's webhook as Meta does (again, to test a repeated delivery). `signature`
   * replaces the right header value (null: no header at all); `secret` signs with another secret.
   */
  async deliver(
    number: FakeNumber,
    notification: Record<string, unknown>,
    opts: { signature?: string | null; secret?: string } = {},
  ): Promise<number> {
    const webhook = this.state(number).webhook;
    if (!webhook) throw new Error(`number ${number.phoneNumberId} has no webhook`);
    return (
      await this.post(webhook.url, metaJson(notification), opts.signature, opts.secret ?? number.appSecret)
    ).status;
  }

  /** POSTs raw bytes to a URL with Meta's signature of them (or the given header value), for edge cases. */
  async post(
    url: string,
    raw: string,
    signature: string | null | undefined,
    secret: string,
  ): Promise<{ status: number; body: string }> {
    const header =
      signature === undefined ? signatureOf(raw, secret) : signature === null ? undefined : signature;
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'facebookexternalua',
        ...(header === undefined ? {} : { 'x-hub-signature-256': header }),
      },
      body: raw,
    });
    return { status: res.status, body: await res.text() };
  }

  webhookOf(number: FakeNumber): { url: string; verifyToken: string } | null {
    return this.state(number).webhook;
  }

  /** Every request is refused at the socket until `up()`. */
  down(): void {
    this.failures.push({ kind: 'down' });
  }

  up(): void {
    this.failures = this.failures.filter((f) => f.kind !== 'down');
  }

  /** The next `times` calls to `path` (the number itself, or its messages) answer a Graph error. */
  failNext(path: 'messages' | 'number', status: number, code: number, message: string, times = 1): void {
    this.failures.push({ kind: 'error', path, status, code, message, times });
  }

  /** Messages sent to `waId`, in order. */
  messagesTo(waId: string): SentWhatsApp[] {
    return this.sent.filter((m) => m.to === waId);
  }

  /** Resolves once `count` messages were sent to `waId` (rejects after `timeoutMs`, scaled by the load). */
  async waitForMessages(waId: string, count: number, timeoutMs = 15_000): Promise<SentWhatsApp[]> {
    const deadline = Date.now() + scaled(timeoutMs);
    for (;;) {
      const got = this.messagesTo(waId);
      if (got.length >= count) return got;
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(
          `expected ${count} messages to ${waId}, got ${got.length}: ${JSON.stringify(got.map((m) => m.body))}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 1000));
        this.sentWaiters.add(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private state(number: FakeNumber): NumberState {
    const s = this.numbers.get(number.phoneNumberId);
    if (!s) throw new Error('unknown number');
    return s;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.failures.some((f) => f.kind === 'down')) {
      req.socket.destroy();
      return;
    }
    const url = new URL(req.url ?? '/', 'http://graph.invalid');
    const raw = await readBody(req);
    const auth = req.headers.authorization;
    const token = auth?.startsWith('Bearer ') ? auth.slice('Bearer '.length) : undefined;
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      return graphError(res, 400, 100, 'Invalid parameter', 'OAuthException');
    }
    this.calls.push({ method: req.method ?? 'GET', path: url.pathname, token, body, at: Date.now() });

    const m = new RegExp(`^/${GRAPH_VERSION.replace('.', '\\.')}/([0-9]+)(/messages)?$`).exec(url.pathname);
    if (!m) {
      return graphError(res, 400, 2500, 'Unknown path components', 'OAuthException');
    }
    const [, id, messages] = m as unknown as [string, string, string | undefined];
    const path = messages ? 'messages' : 'number';

    const failure = this.failures.find((f) => f.kind === 'error' && f.path === path);
    if (failure && failure.kind === 'error') {
      failure.times -= 1;
      if (failure.times <= 0) this.failures = this.failures.filter((f) => f !== failure);
      return graphError(res, failure.status, failure.code, failure.message, 'OAuthException');
    }

    const state = this.numbers.get(id);
    if (!token) {
      return graphError(
        res,
        400,
        2500,
        'An active access token must be used to query information about the current user.',
        'OAuthException',
      );
    }
    // A token Meta does not know is refused before the object is looked at.
    if (![...this.numbers.values()].some((s) => s.number.accessToken === token)) {
      return graphError(
        res,
        401,
        190,
        'Invalid OAuth access token - Cannot parse access token',
        'OAuthException',
      );
    }
    if (!state || state.number.accessToken !== token) {
      return graphError(
        res,
        400,
        100,
        `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
        'GraphMethodException',
        33,
      );
    }

    if (path === 'number') {
      if (req.method !== 'GET')
        return graphError(res, 400, 100, 'Unsupported post request.', 'GraphMethodException');
      return json(res, 200, {
        verified_name: state.number.verifiedName,
        code_verification_status: 'VERIFIED',
        display_phone_number: state.number.displayPhoneNumber,
        quality_rating: 'GREEN',
        platform_type: 'CLOUD_API',
        throughput: { level: 'STANDARD' },
        id: state.number.phoneNumberId,
      });
    }

    if (req.method !== 'POST')
      return graphError(res, 400, 100, 'Unsupported get request.', 'GraphMethodException');
    const msg = (body ?? {}) as {
      status?: unknown;
      message_id?: unknown;
      typing_indicator?: { type?: unknown };
      messaging_product?: unknown;
      to?: unknown;
      type?: unknown;
      text?: { body?: unknown; preview_url?: unknown };
    };
    if (msg.messaging_product !== 'whatsapp') {
      return graphError(
        res,
        400,
        100,
        '(#100) The parameter messaging_product is required.',
        'OAuthException',
      );
    }
    if (msg.status === 'read') {
      if (typeof msg.message_id !== 'string' || !this.received.has(msg.message_id)) {
        return graphError(res, 400, 100, '(#100) Invalid parameter', 'OAuthException');
      }
      if (msg.typing_indicator !== undefined) {
        if (msg.typing_indicator.type !== 'text')
          return graphError(res, 400, 100, '(#100) Invalid parameter', 'OAuthException');
        this.typing.push({ phoneNumberId: id, messageId: msg.message_id, at: Date.now() });
      }
      return json(res, 200, { success: true });
    }
    if (typeof msg.to !== 'string' || !/^\+?[0-9]{6,20}$/.test(msg.to)) {
      return graphError(res, 400, 100, '(#100) Invalid parameter', 'OAuthException');
    }
    if ((msg.type ?? 'text') !== 'text' || typeof msg.text?.body !== 'string' || msg.text.body === '') {
      return graphError(res, 400, 100, "(#100) The parameter text['body'] is required.", 'OAuthException');
    }
    if (msg.text.body.length > 4096) {
      return graphError(
        res,
        400,
        100,
        "(#100) Param text['body'] must be at most 4096 characters long.",
        'OAuthException',
      );
    }
    const sent: SentWhatsApp = {
      phoneNumberId: id,
      to: msg.to.replace(/^\+/, ''),
      body: msg.text.body,
      previewUrl: msg.text.preview_url === true,
      messageId: `wamid.${randomBytes(24).toString('base64url')}`,
      at: Date.now(),
    };
    this.sent.push(sent);
    for (const wake of this.sentWaiters) wake();
    this.sentWaiters.clear();
    return json(res, 200, {
      messaging_product: 'whatsapp',
      contacts: [{ input: msg.to, wa_id: sent.to }],
      messages: [{ id: sent.messageId }],
    });
  }
}

/** `sha256=<hex>`: Meta's X-Hub-Signature-256 of a raw body. */
export function signatureOf(raw: string | Buffer, appSecret: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(raw).digest('hex')}`;
}

/** JSON as Meta writes it: non-ASCII characters as \uXXXX and `/` as `\/`. */
export function metaJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/\//g, '\\/')
    .replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function graphError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  type: string,
  subcode?: number,
): void {
  json(res, status, {
    error: {
      message,
      type,
      code,
      ...(subcode === undefined ? {} : { error_subcode: subcode }),
      fbtrace_id: `A${randomBytes(11).toString('base64url')}`,
    },
  });
}

function json(res: ServerResponse, status: number, payload: unknown): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
  res.end(JSON.stringify(payload));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
