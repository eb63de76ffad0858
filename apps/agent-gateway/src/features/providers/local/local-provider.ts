import { setTimeout as sleep } from 'node:timers/promises';
import type { ChatMessage, ChatProvider, ProviderTurn } from '../provider.ts';
import { PROPERTY_WORDS } from './intent.ts';
import { platformReply } from './platform-reply.ts';
import { hasPlatformTools } from './platform-reader.ts';
import { hasProposalTools, proposalReply } from './replies/proposals.ts';
import {
  cannotAnswerReply,
  helpReply,
  lastUser,
  memoryReply,
  smallTalkReply,
} from './replies/conversation.ts';

// The offline, deterministic provider: no vendor, no network. It answers from rules over the conversation
// so that the assistant is useful (and testable) without any API key. When the worker is bound (its toolbox
// carries the platform tools) it answers a property manager's questions from real platform data by calling
// those tools (platform-reply.ts); without them it says it is not connected yet.

const NOT_CONNECTED = [
  'I am not connected to your property platform yet, so I cannot see your portfolio.',
  '',
  'An administrator can connect me in **Settings**: they need a platform API key for your workspace, with the ' +
    'assistant bridge turned on. Once connected, ask me about compliance, arrears, tenancies, deals and email.',
].join('\n');

/**
 * The rule-based reply without platform data (an unbound worker, or a question that is not about the platform).
 * `proposals`: the worker has the proposal tools, so the help names the "propose …" requests.
 */
export function localReply(
  messages: ChatMessage[],
  opts: { proposals?: boolean; bound?: boolean } = {},
): string {
  const remembered = memoryReply(messages);
  if (remembered !== null) return remembered;
  const text = lastUser(messages).trim();
  const lower = text.toLowerCase();
  const small = smallTalkReply(text);
  if (small !== null) return small;
  if (/^\/?help$|\b(help|what can you do|what can i ask|commands?)\b/.test(lower))
    return helpReply(!!opts.proposals);
  if (!opts.bound && PROPERTY_WORDS.test(text)) return NOT_CONNECTED;
  return cannotAnswerReply();
}

/** Splits a reply into small chunks of about three words, keeping whitespace so they join back exactly. */
export function chunkText(text: string, wordsPerChunk = 3): string[] {
  const tokens = text.match(/\S+\s*|\s+/g) ?? [];
  const chunks: string[] = [];
  for (let i = 0; i < tokens.length; i += wordsPerChunk)
    chunks.push(tokens.slice(i, i + wordsPerChunk).join(''));
  return chunks;
}

export function createLocalProvider(opts: { delayMs?: number } = {}): ChatProvider {
  const delayMs = opts.delayMs ?? 0;
  return {
    name: 'local',
    model: 'local-rules-1',
    async *stream(turn: ProviderTurn) {
      const reply = await replyFor(turn);
      for (const chunk of chunkText(reply)) {
        turn.signal.throwIfAborted();
        if (delayMs > 0) await sleep(delayMs, undefined, { signal: turn.signal });
        yield chunk;
      }
    },
  };
}

/** The whole reply for a turn: conversation rules first, then platform data when bound, then the other rules. */
async function replyFor(turn: ProviderTurn): Promise<string> {
  turn.signal.throwIfAborted();
  if (!hasPlatformTools(turn.tools)) return localReply(turn.messages);
  const remembered = memoryReply(turn.messages);
  if (remembered !== null) return remembered;
  const text = lastUser(turn.messages).trim();
  const small = smallTalkReply(text);
  if (small !== null) return small;
  // "propose …" and questions about proposals first: the reads would take "log a repair at MAN-004" for a lookup
  const proposal = await proposalReply(text, turn.tools, turn.signal);
  turn.signal.throwIfAborted();
  if (proposal !== null) return proposal;
  const earlier = turn.messages
    .filter((m) => m.role === 'user')
    .map((m) => m.content)
    .slice(0, -1);
  const fromPlatform = await platformReply(text, turn.tools, turn.signal, earlier);
  turn.signal.throwIfAborted();
  return fromPlatform ?? localReply(turn.messages, { proposals: hasProposalTools(turn.tools), bound: true });
}
