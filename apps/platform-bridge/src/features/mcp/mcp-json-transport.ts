import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';

// The SDK's Streamable HTTP transport, stateless and answering JSON, with one change: the responses to the POST's
// requests are taken as the server sends them and handed to the endpoint as messages, instead of being serialised
// into a web-standard Response that the endpoint would then read back (which, for a portfolio page, cost more CPU
// than the rest of the MCP layer). Everything else is the SDK's: the HTTP checks (Accept, Content-Type, protocol
// version header, batch rules) and their answers, notifications' 202.

export type JsonAnswer = JSONRPCMessage | JSONRPCMessage[];

/** The ids of the JSON-RPC requests in a POST's body (a message with a method and an id), in order. */
export function requestIdsOf(body: unknown): RequestId[] {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  return messages.flatMap((m) => {
    const { id, method } = (m ?? {}) as { id?: unknown; method?: unknown };
    return typeof method === 'string' && (typeof id === 'string' || typeof id === 'number') ? [id] : [];
  });
}

export class JsonAnswerTransport extends WebStandardStreamableHTTPServerTransport {
  /** Resolves with the answer once every request of the body has its response, as the SDK would shape it. */
  readonly answered: Promise<JsonAnswer>;
  readonly #ids: RequestId[];
  readonly #responses = new Map<RequestId, JSONRPCMessage>();
  #resolve!: (answer: JsonAnswer) => void;

  constructor(requestIds: RequestId[]) {
    super({ sessionIdGenerator: undefined, enableJsonResponse: true });
    this.#ids = requestIds;
    this.answered = new Promise((resolve) => (this.#resolve = resolve));
  }

  override async send(message: JSONRPCMessage, options?: { relatedRequestId?: RequestId }): Promise<void> {
    const id = 'id' in message && ('result' in message || 'error' in message) ? message.id : undefined;
    if (id === undefined || id === null || !this.#ids.includes(id)) return super.send(message, options);
    this.#responses.set(id, message);
    if (this.#responses.size === new Set(this.#ids).size) {
      const responses = this.#ids.map((i) => this.#responses.get(i)!);
      // one response alone, as the SDK's own JSON answer gives it (a batch of one included)
      this.#resolve(responses.length === 1 ? responses[0]! : responses);
    }
  }
}
