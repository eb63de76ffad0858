import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { scaled } from '@pa/http-kit/testing';

// A loopback Telegram Bot API for the tests: the real HTTP shape (`/bot<token>/<method>`, JSON or form bodies,
// `{ok: true, result}` and `{ok: false, error_code, description, parameters?: {retry_after}}` envelopes), the real
// long-poll semantics of getUpdates (an offset confirms every earlier update; the call waits up to `timeout`
// seconds for one), webhook delivery with `X-Telegram-Bot-Api-Secret-Token`, and getUpdates refused with 409 while
// a webhook is set, as Telegram does. Tests drive it: a user writes in a chat, the Bot API goes down or rate-limits.

export interface FakeBot {
  id: number;
  username: string;
  firstName: string;
  token: string;
}

export interface SentMessage {
  token: string;
  chatId: string;
  text: string;
  parseMode: string | undefined;
  messageId: number;
  at: number;
}

export interface ApiCall {
  token: string;
  method: string;
  params: Record<string, unknown>;
  at: number;
}

interface BotState {
  bot: FakeBot;
  updates: Array<{ update_id: number } & Record<string, unknown>>;
  nextUpdateId: number;
  webhook: { url: string; secretToken: string | undefined } | null;
  waiters: Set<() => void>;
}

type Failure =
  | { kind: 'down' }
  | { kind: 'rate-limit'; method: string | '*'; retryAfter: number; times: number }
  | { kind: 'error'; method: string; status: number; description: string; times: number };

const MAX_POLL_WAIT_MS = 30_000;

export class FakeTelegram {
  readonly calls: ApiCall[] = [];
  readonly sent: SentMessage[] = [];
  /** requests refused at the socket while down */
  refused = 0;
  private readonly bots = new Map<string, BotState>();
  private failures: Failure[] = [];
  private nextMessageId = 1000;
  private nextBotId = 7_000_000_001;
  private sentWaiters = new Set<() => void>();

  private constructor(
    private readonly server: Server,
    readonly baseUrl: string,
  ) {}

  static async start(): Promise<FakeTelegram> {
    const holder: { fake?: FakeTelegram } = {};
    const server = createServer((req, res) => void holder.fake!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    holder.fake = new FakeTelegram(server, `http://127.0.0.1:${port}`);
    return holder.fake;
  }

  /** A bot Telegram knows, with a token of the real shape. */
  addBot(username = `test_${this.nextBotId}_bot`): FakeBot {
    const id = this.nextBotId++;
    const token = `${id}:AA${Buffer.from(`${id}-${username}`).toString('base64url').padEnd(33, 'x').slice(0, 33)}`;
    const bot = { id, username, firstName: username.replace(/_bot$/, ''), token };
    this.bots.set(token, { bot, updates: [], nextUpdateId: 1, webhook: null, waiters: new Set() });
    return bot;
  }

  /** A user writes `text` in a private chat with the bot; returns the update (pushed or delivered to the webhook). */
  async userWrites(
    bot: FakeBot,
    chat: { id: number; firstName?: string; username?: string },
    text: string,
  ): Promise<{ update_id: number }> {
    const state = this.state(bot.token);
    const update = {
      update_id: state.nextUpdateId++,
      message: {
        message_id: this.nextMessageId++,
        date: Math.floor(Date.now() / 1000),
        chat: { id: chat.id, type: 'private', first_name: chat.firstName ?? 'Sam', username: chat.username },
        from: { id: chat.id, is_bot: false, first_name: chat.firstName ?? 'Sam', username: chat.username },
        text,
        ...(text.startsWith('/')
          ? { entities: [{ type: 'bot_command', offset: 0, length: text.split(' ')[0]!.length }] }
          : {}),
      },
    };
    if (state.webhook) await this.deliver(state, update);
    else {
      state.updates.push(update);
      for (const wake of state.waiters) wake();
    }
    return update;
  }

  /** Sends an update to the bot's webhook as Telegram does (again, to test a repeated delivery). */
  async deliver(state: BotState | FakeBot, update: Record<string, unknown>): Promise<number> {
    const s = 'bot' in state ? state : this.state(state.token);
    if (!s.webhook) throw new Error(`bot ${s.bot.username} has no webhook`);
    const res = await fetch(s.webhook.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(s.webhook.secretToken ? { 'x-telegram-bot-api-secret-token': s.webhook.secretToken } : {}),
      },
      body: JSON.stringify(update),
    });
    await res.arrayBuffer();
    return res.status;
  }

  webhookOf(bot: FakeBot): { url: string; secretToken: string | undefined } | null {
    return this.state(bot.token).webhook;
  }

  /** Every request is refused at the socket until `up()`. */
  down(): void {
    this.failures.push({ kind: 'down' });
  }

  /** Cuts every open connection (a long poll in progress among them), as a network drop would. */
  cutConnections(): void {
    this.server.closeAllConnections();
  }

  up(): void {
    this.failures = this.failures.filter((f) => f.kind !== 'down');
  }

  /** The next `times` calls of `method` ('*' for any) answer 429 with `retry_after`. */
  rateLimit(method: string | '*', retryAfter: number, times = 1): void {
    this.failures.push({ kind: 'rate-limit', method, retryAfter, times });
  }

  /** The next `times` calls of `method` answer `{ok: false, error_code: status, description}`. */
  failNext(method: string, status: number, description: string, times = 1): void {
    this.failures.push({ kind: 'error', method, status, description, times });
  }

  /** Messages the bot sent to `chatId`, in order. */
  messagesTo(chatId: number | string): SentMessage[] {
    return this.sent.filter((m) => m.chatId === String(chatId));
  }

  /** Resolves once `count` messages were sent to `chatId` (rejects after `timeoutMs`, scaled by the load). */
  async waitForMessages(chatId: number | string, count: number, timeoutMs = 15_000): Promise<SentMessage[]> {
    const deadline = Date.now() + scaled(timeoutMs);
    for (;;) {
      const got = this.messagesTo(chatId);
      if (got.length >= count) return got;
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(
          `expected ${count} messages to chat ${chatId}, got ${got.length}: ${JSON.stringify(got.map((m) => m.text))}`,
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

  callsOf(method: string): ApiCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  async close(): Promise<void> {
    for (const s of this.bots.values()) for (const wake of s.waiters) wake();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private state(token: string): BotState {
    const s = this.bots.get(token);
    if (!s) throw new Error('unknown bot');
    return s;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.failures.some((f) => f.kind === 'down')) {
      this.refused += 1;
      req.socket.destroy();
      return;
    }
    const m = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(new URL(req.url ?? '/', this.baseUrl).pathname);
    if (!m) return reply(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
    const [, token, method] = m as unknown as [string, string, string];
    const params = {
      ...Object.fromEntries(new URL(req.url!, this.baseUrl).searchParams),
      ...(await body(req)),
    };
    this.calls.push({ token, method, params, at: Date.now() });

    const failure = this.failures.find(
      (f) =>
        (f.kind === 'rate-limit' && (f.method === '*' || f.method === method)) ||
        (f.kind === 'error' && f.method === method),
    );
    if (failure && failure.kind !== 'down') {
      failure.times -= 1;
      if (failure.times <= 0) this.failures = this.failures.filter((f) => f !== failure);
      if (failure.kind === 'rate-limit') {
        return reply(res, 429, {
          ok: false,
          error_code: 429,
          description: `Too Many Requests: retry after ${failure.retryAfter}`,
          parameters: { retry_after: failure.retryAfter },
        });
      }
      return reply(res, failure.status, {
        ok: false,
        error_code: failure.status,
        description: failure.description,
      });
    }

    const state = this.bots.get(token);
    if (!state) return reply(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
    const ok = (result: unknown) => reply(res, 200, { ok: true, result });

    switch (method) {
      case 'getMe':
        return ok({
          id: state.bot.id,
          is_bot: true,
          first_name: state.bot.firstName,
          username: state.bot.username,
          can_join_groups: true,
          can_read_all_group_messages: false,
          supports_inline_queries: false,
        });
      case 'getUpdates':
        return this.getUpdates(state, params, res);
      case 'sendMessage': {
        const text = String(params.text ?? '');
        if (!text)
          return reply(res, 400, {
            ok: false,
            error_code: 400,
            description: 'Bad Request: message text is empty',
          });
        if (text.length > 4096)
          return reply(res, 400, {
            ok: false,
            error_code: 400,
            description: 'Bad Request: message is too long',
          });
        // Telegram parses parse_mode HTML strictly and refuses the whole message when it cannot
        const unparsable = params.parse_mode === 'HTML' ? htmlProblem(text) : null;
        if (unparsable)
          return reply(res, 400, {
            ok: false,
            error_code: 400,
            description: `Bad Request: can't parse entities: ${unparsable}`,
          });
        const message = {
          token,
          chatId: String(params.chat_id),
          text,
          parseMode: params.parse_mode === undefined ? undefined : String(params.parse_mode),
          messageId: this.nextMessageId++,
          at: Date.now(),
        };
        this.sent.push(message);
        for (const wake of this.sentWaiters) wake();
        this.sentWaiters.clear();
        return ok({
          message_id: message.messageId,
          date: Math.floor(message.at / 1000),
          chat: { id: Number(params.chat_id), type: 'private' },
          text,
        });
      }
      case 'sendChatAction':
        return ok(true);
      case 'setWebhook': {
        const url = String(params.url ?? '');
        if (!url)
          return reply(res, 400, {
            ok: false,
            error_code: 400,
            description: 'Bad Request: bad webhook: URL is empty',
          });
        state.webhook = {
          url,
          secretToken: params.secret_token === undefined ? undefined : String(params.secret_token),
        };
        for (const wake of state.waiters) wake();
        return ok(true);
      }
      case 'deleteWebhook':
        state.webhook = null;
        return ok(true);
      case 'getWebhookInfo':
        return ok({ url: state.webhook?.url ?? '', has_custom_certificate: false, pending_update_count: 0 });
      default:
        return reply(res, 404, { ok: false, error_code: 404, description: 'Not Found: method not found' });
    }
  }

  private async getUpdates(
    state: BotState,
    params: Record<string, unknown>,
    res: ServerResponse,
  ): Promise<void> {
    if (state.webhook) {
      return reply(res, 409, {
        ok: false,
        error_code: 409,
        description:
          "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
      });
    }
    const offset = params.offset === undefined ? 0 : Number(params.offset);
    const limit = Math.min(100, params.limit === undefined ? 100 : Number(params.limit));
    // an offset confirms every update before it: Telegram forgets them
    if (offset > 0) state.updates = state.updates.filter((u) => u.update_id >= offset);
    const waitMs = Math.min(
      MAX_POLL_WAIT_MS,
      1000 * (params.timeout === undefined ? 0 : Number(params.timeout)),
    );
    if (state.updates.length === 0 && waitMs > 0) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          state.waiters.delete(done);
          res.off('close', done);
          resolve();
        };
        const timer = setTimeout(done, waitMs);
        state.waiters.add(done);
        res.on('close', done);
      });
    }
    if (res.destroyed) return;
    if (state.webhook) return this.getUpdates(state, params, res);
    return reply(res, 200, { ok: true, result: state.updates.slice(0, limit) });
  }
}

const HTML_TAGS = new Set([
  'b',
  'strong',
  'i',
  'em',
  'u',
  'ins',
  's',
  'strike',
  'del',
  'span',
  'tg-spoiler',
  'a',
  'code',
  'pre',
  'blockquote',
  'tg-emoji',
]);

/** What Telegram would say of parse_mode HTML text it cannot parse (its tag subset, its four entities), or null. */
export function htmlProblem(text: string): string | null {
  const open: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '&') {
      if (!/^&(lt|gt|amp|quot|#\d+|#x[0-9a-f]+);/i.test(text.slice(i, i + 12)))
        return `Character entity expected at byte offset ${i}`;
    } else if (c === '<') {
      const m = /^<(\/?)([a-z-]+)(\s[^<>]*)?>/i.exec(text.slice(i));
      if (!m) return `Unsupported start tag at byte offset ${i}`;
      const name = m[2]!.toLowerCase();
      if (!HTML_TAGS.has(name)) return `Unsupported start tag "${name}" at byte offset ${i}`;
      if (!m[1]) open.push(name);
      else if (open.pop() !== name)
        return `Can't find end tag corresponding to start tag at byte offset ${i}`;
      i += m[0].length - 1;
    }
  }
  return open.length ? `Can't find end tag corresponding to start tag "${open.at(-1)}"` : null;
}

function reply(res: ServerResponse, status: number, payload: unknown): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(payload));
}

async function body(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  if (!raw) return {};
  const type = req.headers['content-type'] ?? '';
  if (type.includes('application/json')) return JSON.parse(raw) as Record<string, unknown>;
  if (type.includes('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(raw));
  return {};
}
