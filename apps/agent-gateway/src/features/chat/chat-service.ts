import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Conflict } from '@pa/http-kit';
import type { ChatMetrics } from '../../lib/metrics/gateway-metrics.ts';
import { inSpan } from '@pa/telemetry';
import type { Logger } from 'pino';
import type { ProviderRegistry } from '../providers/provider-registry.ts';
import { type ChatMessage, type ChatProvider, isAbortError, ProviderError } from '../providers/provider.ts';
import { TURN_TIME_LIMIT_MS } from '../sessions/open-turn-sweeper.ts';
import type { Channel, SessionKey, SessionRepository } from '../sessions/session-repository.ts';
import { EMPTY_TOOLBOX, type Toolbox } from '../tools/toolbox.ts';

export const SYSTEM_PROMPT = [
  'You are an assistant for a UK property manager, talking in a web chat or a messaging app.',
  'Answer briefly and concretely, in British English, using Markdown where it helps.',
  'Use the tools to read the platform; never invent properties, dates or figures.',
  'You cannot change the platform: with the proposal tools you can only submit proposals, which create no record.',
  'A proposal awaits review by a workspace admin in the platform’s review queue and nothing exists until it is approved.',
  'Never claim that a record (a deal, a certificate, a financial log) was created or updated: after proposing, say that',
  'the proposal awaits review, with its id (and the review queue link when the tool gives one).',
  'Your name is Porter. Name the property reference (e.g. MAN-004) of everything you mention; write lists with',
  'columns as Markdown tables; use UK formats: £1,395 (pence only when not whole), 92.1%, 19 Oct 2026; no emoji.',
  'You may end a reply with one last paragraph of one to three follow-up questions you can answer, exactly like:',
  'Ask next: “Which EPCs are below E?” · “What needs attention at MAN-004?”',
].join(' ');

/** How long a repeated requestId waits for the first attempt's reply to be stored before giving up. */
const REPLAY_WAIT_MS = 3000;

export function newExternalSessionId(): string {
  return `s_${randomBytes(16).toString('base64url')}`;
}

export interface PreparedTurn {
  channel: Channel;
  sessionId: string; // internal UUID
  externalId: string;
  provider: ChatProvider;
  /** the assistant worker answering, or null when there is none (no tools then) */
  workerId: string | null;
  /** the worker's proposal tools are left out whatever PLATFORM_BRIDGE_WRITES says (a read-only embed key) */
  readOnly?: boolean | undefined;
  message: string;
  requestId?: string | undefined;
  /** the session's latest turns before this one, oldest first */
  context: readonly { role: 'user' | 'assistant'; content: string }[];
  /** the timestamp stored on the user's turn */
  startedAt: Date;
  /** set when the requestId was seen before: the stored reply, to be replayed instead of running the turn */
  replay?: string;
}

export interface TurnResult {
  reply: string;
  status: 'complete' | 'interrupted' | 'error' | 'replayed';
}

export function createChatService(deps: {
  sessions: SessionRepository;
  providers: ProviderRegistry;
  logger: Logger;
  /** told of each turn and tool call (lib/metrics); default none */
  metrics?: ChatMetrics | undefined;
  /** how long a turn may run; TURN_TIME_LIMIT_MS unless a test says otherwise */
  turnLimitMs?: number;
  toolbox?: (turn: PreparedTurn) => Promise<Toolbox>;
  /** the worker a turn goes to: the named one (404 if unknown), else the default; null without workers */
  resolveWorker?: (request: {
    workerId?: string | undefined;
    workspaceId?: string | undefined;
    workspaceKnown?: boolean;
  }) => Promise<string | null>;
}) {
  const { sessions, providers, logger, metrics } = deps;

  return {
    /**
     * Everything that can fail before a reply starts: the provider, the worker, the session. Then the turn
     * begins in one round trip: the session is created or touched, the user's message stored and the context
     * read. A requestId seen before turns into a replay of the stored reply instead. Errors thrown here
     * become HTTP problems.
     */
    async prepare(input: {
      channel: Channel;
      /** the session's owner: a paired device's workspace, or OPERATOR_OWNER */
      owner: string;
      /** the paired device asking (recorded on the session it starts), if any */
      deviceId?: string | null | undefined;
      externalId?: string | undefined;
      provider?: string | undefined;
      message: string;
      requestId?: string | undefined;
      workerId?: string | undefined;
      /** the workspace the request names (X-Workspace-Id): where its worker is looked up */
      workspaceId?: string | undefined;
      /** no proposal tools for this turn (an embed key without allowProposals) */
      readOnly?: boolean | undefined;
    }): Promise<PreparedTurn> {
      if (input.provider) providers.get(input.provider); // validates before anything is written
      const workerId = deps.resolveWorker
        ? await deps.resolveWorker({
            workerId: input.workerId,
            workspaceId: input.workspaceId,
            // a paired device's own workspace exists (its device row depends on it): no need to look it up
            workspaceKnown: input.owner !== '' && input.workspaceId === input.owner,
          })
        : null;
      const externalId = input.externalId ?? newExternalSessionId();
      const startedAt = new Date();
      // the turn's phases in spans of their own when tracing is on (docs/operations.md, "Tracing")
      const begun = await inSpan('chat.session.begin', undefined, () =>
        sessions.begin({
          channel: input.channel,
          owner: input.owner,
          deviceId: input.deviceId,
          externalId,
          provider: input.provider,
          message: input.message,
          requestId: input.requestId,
          createdAt: startedAt,
        }),
      );
      const providerName =
        begun.session.provider && providers.has(begun.session.provider)
          ? begun.session.provider
          : providers.defaultName;
      const prepared: PreparedTurn = {
        channel: input.channel,
        sessionId: begun.session.id,
        externalId,
        provider: providers.get(providerName),
        workerId,
        readOnly: input.readOnly,
        message: input.message,
        requestId: input.requestId,
        context: begun.context,
        startedAt,
      };
      // Not stored: this requestId's user turn was there already (a reconnect, or two racing attempts).
      if (!begun.stored && input.requestId) {
        prepared.replay = (await waitForStoredReply(begun.session.id, input.requestId)) ?? '';
      }
      return prepared;
    },

    /**
     * Runs a prepared turn, handing each text delta to `onDelta`, and stores the reply. The turn stops when `abort`
     * is aborted (the caller's: the client went away) and when it reaches TURN_TIME_LIMIT_MS, where it aborts
     * `abort` itself: a turn never runs past the limit, which is what lets open-turn-sweeper.ts tell a turn
     * abandoned by a stopped process from one another instance is still answering. (The caller's controller with
     * one timer: AbortSignal.any over AbortSignal.timeout costs several times as much per turn.)
     */
    async run(
      turn: PreparedTurn,
      abort: AbortController,
      onDelta: (text: string) => void,
    ): Promise<TurnResult> {
      if (turn.replay !== undefined) {
        if (turn.replay) onDelta(turn.replay);
        metrics?.chatTurn({
          provider: turn.provider.name,
          channel: turn.channel,
          status: 'replayed',
          seconds: 0,
        });
        return { reply: turn.replay, status: 'replayed' };
      }
      const started = performance.now();
      // a failure is thrown as the provider's error: the turn ended in `error`
      let status: TurnResult['status'] = 'error';
      const limit = setTimeout(
        () => abort.abort(new DOMException('The turn reached its time limit.', 'TimeoutError')),
        deps.turnLimitMs ?? TURN_TIME_LIMIT_MS,
      );
      try {
        return await inSpan(
          'chat.turn',
          { 'pa.chat.channel': turn.channel, 'gen_ai.provider.name': turn.provider.name },
          async (span) => {
            const result = await answer(turn, abort.signal, onDelta);
            span.set('pa.chat.status', result.status);
            status = result.status;
            return result;
          },
        );
      } finally {
        clearTimeout(limit);
        metrics?.chatTurn({
          provider: turn.provider.name,
          channel: turn.channel,
          status,
          seconds: (performance.now() - started) / 1000,
        });
      }
    },

    async clear(key: SessionKey): Promise<number> {
      return sessions.clear(key);
    },

    async activeProvider(key: Omit<SessionKey, 'externalId'> & { externalId?: string | undefined }) {
      if (!key.externalId) return providers.defaultName;
      const session = await sessions.find({ ...key, externalId: key.externalId });
      return session?.provider && providers.has(session.provider) ? session.provider : providers.defaultName;
    },
  };

  /** Runs a turn to its end (or its signal's), handing each text delta to `onDelta`, and stores the reply. */
  async function answer(
    turn: PreparedTurn,
    signal: AbortSignal,
    onDelta: (text: string) => void,
  ): Promise<TurnResult> {
    const messages: ChatMessage[] = [
      { role: 'system', content: SYSTEM_PROMPT },
      ...turn.context,
      { role: 'user', content: turn.message },
    ];

    const calls: unknown[] = [];
    let reply = '';
    const store = (status: 'complete' | 'interrupted' | 'error', error?: string) =>
      inSpan('chat.session.store', undefined, () =>
        sessions.addTurn(turn.sessionId, {
          role: 'assistant',
          content: reply,
          status,
          requestId: turn.requestId,
          provider: turn.provider.name,
          toolCalls: calls.length ? calls : undefined,
          error,
          // strictly after the user's turn, so that the timestamps agree with the stored order (turns.seq)
          createdAt: new Date(Math.max(Date.now(), turn.startedAt.getTime() + 1)),
        }),
      );

    try {
      // inside the try: the user's turn is stored, so a failure from here on is stored as the reply
      const tools = deps.toolbox ? await deps.toolbox(turn) : EMPTY_TOOLBOX;
      const recordingTools: Toolbox = {
        definitions: tools.definitions,
        call: (name, args, s) =>
          inSpan(
            // a name the model made up is not a span name (span names stay a small set)
            `execute_tool ${tools.definitions.some((d) => d.name === name) ? name : 'unknown'}`,
            { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name.slice(0, 100) },
            async (span) => {
              const record = await tools.call(name, args, s);
              calls.push(record);
              // the metrics too name only a tool the turn was offered
              metrics?.toolCall(
                tools.definitions.some((d) => d.name === name) ? name : 'unknown',
                record.ok ? 'ok' : 'error',
              );
              if (!record.ok) span.fail('the tool answered with an error');
              return record;
            },
          ),
      };
      // the provider's whole answer; its tool calls (above) are its children, its HTTP calls to the vendor too
      await inSpan(
        `chat ${turn.provider.name}`,
        { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': turn.provider.name },
        async () => {
          for await (const delta of turn.provider.stream({ messages, tools: recordingTools, signal })) {
            if (signal.aborted) break;
            reply += delta;
            onDelta(delta);
          }
        },
      );
      signal.throwIfAborted();
    } catch (err) {
      if (signal.aborted || isAbortError(err)) {
        await store('interrupted');
        return { reply, status: 'interrupted' };
      }
      const message = err instanceof ProviderError ? err.message : 'The provider failed unexpectedly.';
      if (!(err instanceof ProviderError))
        logger.error({ err, provider: turn.provider.name }, 'provider failed');
      await store('error', message);
      throw err instanceof ProviderError ? err : new ProviderError(message);
    }
    await store('complete');
    return { reply, status: 'complete' };
  }

  // A browser reconnect may arrive while the first attempt is still finishing (its abort is being stored).
  async function waitForStoredReply(sessionId: string, requestId: string): Promise<string | undefined> {
    const deadline = Date.now() + REPLAY_WAIT_MS;
    for (;;) {
      const { user, assistant } = await sessions.findByRequest(sessionId, requestId);
      if (!user) return undefined;
      if (assistant) return assistant.content;
      // closed by the open-turn sweeper: its process stopped before replying, there is nothing to wait for
      if (user.status === 'interrupted') return '';
      if (Date.now() > deadline) {
        throw new Conflict('turn-in-progress', 'This request is still being answered; try again shortly.');
      }
      await sleep(50);
    }
  }
}
export type ChatService = ReturnType<typeof createChatService>;
