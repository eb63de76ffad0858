import { AppError } from '@pa/http-kit';
import type { Logger } from 'pino';
import type { ChatService } from '../chat/chat-service.ts';
import { ProviderError } from '../providers/provider.ts';
import { OPERATOR_OWNER, type Channel as SessionChannel } from '../sessions/session-repository.ts';
import type { ChannelConnectors } from './channel-connector.ts';
import type { ChannelSecretsBox } from './channel-secrets.ts';
import { type ChannelUpdatesRepository, type UpdateKey, updateKeyId } from './channel-updates-repository.ts';
import type { ChannelRow, ChannelsRepository } from './channels-repository.ts';
import { createKeyedQueue } from './keyed-queue.ts';
import { pairingAttempt, sha256 } from './pairing.ts';
import { describeError } from './safe-error.ts';

export const INVALID_CODE_TEXT = 'That code is not valid or has expired. Ask for a new one in the settings.';
export const NOT_PAIRED_TEXT =
  'This bot is not connected to a chat yet. Send the pairing code shown in the settings.';
export const REFUSAL_TEXT = 'This bot is connected to someone else.';
export const HELP_TEXT = [
  'Ask me about your portfolio in plain words, for example:',
  '• which gas safety certificates have expired?',
  '• what deals are open?',
  '• which emails need a reply?',
  '',
  '/clear — forget this chat’s conversation',
  '/stop — stop the answer being written',
  '/help — this message',
].join('\n');

/** How often `typing` is sent again while a turn runs (Telegram shows it for about 5 seconds). */
const TYPING_EVERY_MS = 4000;

/**
 * How long a process's claim on an update it has taken in lasts. It renews the claim every quarter of that while
 * it holds the update (queued or running); a claim that runs out means the process stopped, and another answers.
 */
export const UPDATE_CLAIM_MS = 120_000;
/** A message whose process stopped is still answered within this time of its arrival; later, it is given up. */
export const ORPHAN_ANSWER_WITHIN_MS = 3_600_000;
/** A message taken on this many times without being handled is given up: it may be what stopped the processes. */
export const MAX_UPDATE_ATTEMPTS = 3;
export const GIVE_UP_TEXT = (text: string) =>
  `Sorry, I could not answer your message “${text.length > 80 ? `${text.slice(0, 79)}…` : text}”. Please send it again.`;

/** One text message from one chat of a channel, as the webhook route or a poller took it in. */
export interface IncomingText {
  /** the channel row the update came for (its id, worker and type are what count; the rest is read again) */
  channel: Pick<ChannelRow, 'id' | 'workerId' | 'type'>;
  chatId: string;
  chatTitle: string | null;
  text: string;
  /** the platform's id of the update (Telegram update_id, WhatsApp message id): a repeat is handled once */
  updateKey: string;
}

export type Handled =
  | 'duplicate'
  | 'gone'
  | 'paired'
  | 'invalid-code'
  | 'refused'
  | 'help'
  | 'cleared'
  | 'stop-requested'
  | 'nothing-to-stop'
  | 'answered'
  | 'stopped'
  | 'failed'
  | 'given-up';

function command(text: string): string | null {
  const m = /^\/([a-z]+)(?:@\w+)?(?:\s|$)/i.exec(text.trim());
  return m ? m[1]!.toLowerCase() : null;
}

/**
 * A messaging chat's session id: the worker's id and the chat's. One person writing to two workers' bots (of one
 * workspace or two) has two conversations, so that each assistant's memory, and the platform data in it, stays its
 * own. Migration 20261126090000_channel_sessions_per_worker moved the sessions kept by chat id alone.
 */
export function channelSessionId(workerId: string, chatId: string): string {
  return `${workerId}:${chatId}`;
}

// A chat on a messaging channel, whatever the platform: pairing, the commands, and chat turns through the same chat
// service (and so the same tools) as the web chat, on session channel `telegram` or `whatsapp` with
// channelSessionId as the external session id. Each chat's updates are handled one at a time, in the order they came in,
// and each is recorded in channel_updates, with its message, before anything else: a repeated delivery does nothing,
// and a message whose process stops before answering it (a crash, `kill -9`) is answered by another process, or by
// the next start (recoverOrphans), at least once. /stop is the exception to the order: it must reach the turn it
// stops, which is still running ahead of it in the queue; taken in by another instance than the one running the turn,
// it is passed on over Redis (stop-bus.ts).
export function createChannelConversation(deps: {
  channels: ChannelsRepository;
  updates: ChannelUpdatesRepository;
  secrets: ChannelSecretsBox;
  connectors: ChannelConnectors;
  chat: ChatService;
  logger: Logger;
  now?: () => Date;
  typingEveryMs?: number;
  /** UPDATE_CLAIM_MS unless given (tests) */
  claimMs?: number;
  /** tells the other instances to stop a chat's running turn (stop-bus.ts); false when they could not be told */
  publishStop?: (chatKey: string) => Promise<boolean>;
}) {
  const { channels, updates, secrets, connectors, chat, logger } = deps;
  const now = deps.now ?? (() => new Date());
  const claimMs = deps.claimMs ?? UPDATE_CLAIM_MS;
  const queue = createKeyedQueue();
  const running = new Map<string, AbortController>();
  const inFlight = new Set<Promise<unknown>>();
  /** the unhandled updates this process holds (queued or running), whose claims it renews */
  const held = new Map<string, UpdateKey>();
  let renewer: NodeJS.Timeout | undefined;

  const claimUntil = () => new Date(now().getTime() + claimMs);

  function hold(key: UpdateKey): void {
    held.set(updateKeyId(key), key);
    if (renewer) return;
    renewer = setInterval(() => {
      updates
        .renewClaims([...held.values()], claimUntil())
        .catch((err: unknown) =>
          logger.warn({ error: describeError(err) }, 'could not renew the claims on channel updates'),
        );
    }, claimMs / 4);
    renewer.unref();
  }

  // Handled, whatever the outcome: a failed turn has told the person so, and must not be answered again.
  async function settle(key: UpdateKey): Promise<void> {
    try {
      await updates.markHandled(key, now());
    } catch (err) {
      logger.warn(
        { channel_id: key.channelId, error: describeError(err) },
        'could not mark a channel update handled: another process may answer it again',
      );
    } finally {
      held.delete(updateKeyId(key));
      if (!held.size && renewer) {
        clearInterval(renewer);
        renewer = undefined;
      }
    }
  }

  /** Whether another process holds one of the chat's messages (this one's, the /stop among them, do not count). */
  async function heldElsewhere(channelId: string, chatId: string): Promise<boolean> {
    const keys = await updates.heldInChat(channelId, chatId, now());
    return keys.some((updateKey) => !held.has(updateKeyId({ channelId, updateKey })));
  }

  async function handle(input: IncomingText, key: string, giveUp = false): Promise<Handled> {
    const { chatId, text } = input;
    const channel = await channels.find(input.channel.workerId, input.channel.id);
    const connector = channel && connectors[channel.type];
    if (!channel || !connector) return 'gone';
    const channelSecrets = secrets.open(channel.secretsCiphertext);
    const say = async (reply: string) => {
      try {
        await connector.send(channel, channelSecrets, chatId, reply);
        if (channel.lastError) await channels.setError(channel.workerId, channel.id, null);
      } catch (err) {
        const error = describeError(err);
        logger.warn({ channel_id: channel.id, error }, 'channel reply could not be delivered');
        await channels.setError(
          channel.workerId,
          channel.id,
          `A reply could not be delivered: ${error.message}`,
        );
      }
    };

    if (giveUp) {
      // only the paired chat is told: another chat's message could not have been answered anyway
      if (channel.chatId === chatId) await say(GIVE_UP_TEXT(text));
      return 'given-up';
    }

    const pairing = pairingAttempt(text);
    if (
      pairing.code &&
      (await channels.pair(
        channel.workerId,
        channel.id,
        sha256(pairing.code),
        { id: chatId, title: input.chatTitle },
        now(),
      ))
    ) {
      logger.info({ channel_id: channel.id, worker_id: channel.workerId }, 'channel paired with a chat');
      await say(
        `Connected to ${channel.worker.name}. Ask me anything about your portfolio; /help lists what I can do.`,
      );
      return 'paired';
    }
    if (channel.chatId !== chatId) {
      if (channel.chatId) {
        // one refusal per chat, not one per message: the marker is an update key of its own
        if (await updates.record(channel.id, `refused:${chatId}`)) await say(REFUSAL_TEXT);
        return 'refused';
      }
      await say(pairing.attempt ? INVALID_CODE_TEXT : NOT_PAIRED_TEXT);
      return 'invalid-code';
    }

    const sessionChannel = channel.type as SessionChannel;
    const sessionId = channelSessionId(channel.workerId, chatId);
    switch (command(text)) {
      case 'start':
        await say(`Connected to ${channel.worker.name}. /help lists what I can do.`);
        return 'help';
      case 'help':
        await say(HELP_TEXT);
        return 'help';
      case 'clear': {
        const n = await chat.clear({ channel: sessionChannel, owner: OPERATOR_OWNER, externalId: sessionId });
        await say(`Cleared: I have forgotten this conversation (${n} message${n === 1 ? '' : 's'}).`);
        return 'cleared';
      }
      case 'stop':
        // No turn of this chat runs here. Another instance may be running one (webhooks behind a load balancer
        // spread a chat's updates): it holds the chat's message, and, told over Redis, stops it and replies.
        if (deps.publishStop && (await heldElsewhere(channel.id, chatId)) && (await deps.publishStop(key)))
          return 'stop-requested';
        await say('Nothing to stop: no answer is being written.');
        return 'nothing-to-stop';
    }

    const abort = new AbortController();
    running.set(key, abort);
    const stopTyping = keepTyping(() => connector.typing(channel, channelSecrets, chatId));
    try {
      const turn = await chat.prepare({
        channel: sessionChannel,
        owner: OPERATOR_OWNER,
        externalId: sessionId,
        message: text,
        workerId: channel.workerId,
        workspaceId: channel.worker.workspaceId,
      });
      const result = await chat.run(turn, abort, () => {});
      stopTyping();
      if (result.status === 'interrupted') {
        await say(result.reply.trim() ? `${result.reply.trimEnd()}\n\n_(stopped)_` : 'Stopped.');
        return 'stopped';
      }
      await say(result.reply || 'I have no answer to that.');
      return 'answered';
    } catch (err) {
      stopTyping();
      logger.warn({ channel_id: channel.id, error: describeError(err) }, 'channel turn failed');
      await say(
        err instanceof ProviderError || err instanceof AppError
          ? `Sorry, I could not answer: ${err.message}`
          : 'Sorry, something went wrong while answering. Try again in a moment.',
      );
      return 'failed';
    } finally {
      stopTyping();
      running.delete(key);
    }
  }

  function keepTyping(send: () => Promise<void>): () => void {
    const show = () =>
      void send().catch((err: unknown) =>
        logger.debug({ error: describeError(err) }, 'typing indicator not shown'),
      );
    show();
    const timer = setInterval(show, deps.typingEveryMs ?? TYPING_EVERY_MS);
    timer.unref();
    return () => clearInterval(timer);
  }

  function track<T>(p: Promise<T>): Promise<T> {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p)).catch(() => {});
    return p;
  }

  /** Handles a recorded update held by this process, then marks it handled. */
  function dispatch(input: IncomingText, giveUp = false): Promise<Handled> {
    const key = `${input.channel.id}:${input.chatId}`;
    const turn = running.get(key);
    const handled: Promise<Handled> =
      command(input.text) === 'stop' && turn
        ? // the running turn stores its partial reply as interrupted and sends it, ahead of anything queued
          Promise.resolve().then(() => {
            turn.abort();
            return 'stop-requested' as const;
          })
        : queue.run(key, () => handle(input, key, giveUp));
    return track(handled.finally(() => settle({ channelId: input.channel.id, updateKey: input.updateKey })));
  }

  return {
    /**
     * Takes an update in: records it with its message, claimed by this process, and queues it for its chat. Resolves
     * once it is recorded (`done` then settles when it has been handled); null for a repeat. The webhook answers
     * only after this, and the poller stores its offset past the update only after this, so that a restart loses
     * no update and handles none twice, while a long turn does not hold up the next update (a /stop behind it must
     * get through). Call it in the order the updates came in: that order is kept per chat.
     */
    async takeIn(input: IncomingText): Promise<{ done: Promise<Handled> } | null> {
      const message = { chatId: input.chatId, chatTitle: input.chatTitle, text: input.text };
      if (!(await updates.record(input.channel.id, input.updateKey, { message, until: claimUntil() })))
        return null;
      hold({ channelId: input.channel.id, updateKey: input.updateKey });
      return { done: dispatch(input) };
    },

    /**
     * Claims the messages whose process stopped before answering them (their claim ran out) and answers them,
     * each chat's in the order they came in, as if they had just arrived. One recovered more than an hour after it
     * came, or already taken on MAX_UPDATE_ATTEMPTS times, is given up: the paired chat is asked to send it again.
     * A /stop is dropped (its turn stopped with its process). Returns how many it claimed; their handling goes on.
     */
    async recoverOrphans(limit = 50): Promise<number> {
      const at = now();
      const orphans = await updates.claimOrphans(at, claimUntil(), limit);
      for (const o of orphans) {
        const input: IncomingText = { ...o };
        const key = { channelId: o.channel.id, updateKey: o.updateKey };
        hold(key);
        const context = {
          channel_id: o.channel.id,
          received_at: o.receivedAt.toISOString(),
          attempts: o.attempts,
        };
        if (command(o.text) === 'stop') {
          void track(settle(key));
          continue;
        }
        const giveUp =
          at.getTime() - o.receivedAt.getTime() > ORPHAN_ANSWER_WITHIN_MS || o.attempts > MAX_UPDATE_ATTEMPTS;
        logger[giveUp ? 'warn' : 'info'](
          context,
          giveUp
            ? 'gave up a channel message whose process stopped before answering it'
            : 'answering a channel message whose process stopped before answering it',
        );
        dispatch(input, giveUp).catch((err: unknown) =>
          logger.error({ ...context, error: describeError(err) }, 'channel update failed'),
        );
      }
      return orphans.length;
    },

    /** Resolves once every update taken in so far has been handled (for shutdown and tests). */
    async idle(): Promise<void> {
      while (inFlight.size) await Promise.allSettled([...inFlight]);
    },

    /** Stops the chat's turn if it runs in this process (a /stop another instance took in). */
    stopRunning(chatKey: string): void {
      running.get(chatKey)?.abort();
    },

    /** Stops every running turn (shutdown): each stores its partial reply as interrupted. */
    abortAll(): void {
      for (const abort of running.values()) abort.abort();
    },
  };
}
export type ChannelConversation = ReturnType<typeof createChannelConversation>;
