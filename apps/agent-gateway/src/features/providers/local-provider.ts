import { setTimeout as sleep } from 'node:timers/promises';
import { hasPlatformTools, platformReply, PROPERTY_WORDS } from './local-platform.ts';
import { hasProposalTools, proposalReply } from './local-proposals.ts';
import type { ChatMessage, ChatProvider, ProviderTurn } from './provider.ts';

// The offline, deterministic provider: no vendor, no network. It answers from rules over the conversation
// so that the gateway is useful (and testable) without any API key. When the worker is bound (its toolbox
// carries the platform tools) it answers a property manager's questions from real platform data by calling
// those tools (local-platform.ts); without them it explains how to bind.

const HELP_QUESTIONS = [
  'I can help a property manager with their portfolio. Ask me, for example:',
  '',
  '- **"Give me a portfolio overview"**',
  '- **"Which gas safety certificates have expired?"**',
  '- **"What needs attention at MAN-004?"**',
  '- **"Any open deals with actions due?"**',
  '- **"Which emails need a response?"**',
];
const COMMANDS = 'Commands: `/help`, `/provider [name]`, `/clear`.';
const HELP = [...HELP_QUESTIONS, '', COMMANDS].join('\n');

// With the proposal tools: the "propose …" requests too, and what becomes of them.
const HELP_WITH_PROPOSALS = [
  ...HELP_QUESTIONS,
  '',
  'I can also **propose** changes, which wait for a workspace admin’s approval in the platform’s review queue:',
  '',
  '- **"Propose a deal to acquire 14 Oak Street for £250,000"**',
  '- **"Log a £120 + VAT repair at MAN-004 paid to Acme Plumbing"**',
  '- **"The new gas certificate for LON-003 was issued today, ref GS-12345"**',
  '- **"What proposals are pending?"**',
  '',
  COMMANDS,
].join('\n');

const NOT_BOUND = [
  'I am not connected to a property platform yet: **no platform tenant is bound** to this assistant.',
  '',
  'To bind one:',
  '1. In the platform, turn on the `assistant_external_bridge` flag for your tenant and create a remote API key.',
  '2. Here, create an assistant worker with the `property-uk` skill pack.',
  '3. Bind it with your tenant slug and the key (the gateway checks the key against the platform first).',
].join('\n');

function lastUser(messages: ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--)
    if (messages[i]!.role === 'user') return messages[i]!.content;
  return '';
}

function earlierUserMessages(messages: ChatMessage[]): string[] {
  const users = messages.filter((m) => m.role === 'user').map((m) => m.content);
  return users.slice(0, -1);
}

/** Replies about the conversation itself (names, what was said); null when the message is about something else. */
function memoryReply(messages: ChatMessage[]): string | null {
  const text = lastUser(messages).trim();
  const lower = text.toLowerCase();

  const name = /\bmy name is ([\p{L}][\p{L}'-]{0,40})/iu.exec(text);
  if (name) return `Nice to meet you, **${name[1]}**. I'll remember that for this conversation.`;

  if (/\bwhat('?s| is) my name\b/.test(lower)) {
    for (const earlier of earlierUserMessages(messages).reverse()) {
      const m = /\bmy name is ([\p{L}][\p{L}'-]{0,40})/iu.exec(earlier);
      if (m) return `Your name is **${m[1]}**.`;
    }
    return "You haven't told me your name yet.";
  }

  if (/\bwhat did i (say|ask)\b/.test(lower)) {
    const earlier = earlierUserMessages(messages);
    const previous = earlier[earlier.length - 1];
    return previous
      ? `You said: "${previous}"`
      : 'This is the first thing you have said in this conversation.';
  }
  return null;
}

/**
 * The rule-based reply without platform data (an unbound worker, or a question that is not about the platform).
 * `proposals`: the worker has the proposal tools, so the help names the "propose …" requests.
 */
export function localReply(messages: ChatMessage[], opts: { proposals?: boolean } = {}): string {
  const remembered = memoryReply(messages);
  if (remembered !== null) return remembered;
  const text = lastUser(messages).trim();
  const lower = text.toLowerCase();
  const help = opts.proposals ? HELP_WITH_PROPOSALS : HELP;

  if (/^(hi|hello|hey|good (morning|afternoon|evening))\b/.test(lower)) {
    return `Hello! ${help}`;
  }
  if (/\b(help|what can you do|commands?)\b/.test(lower)) return help;
  if (PROPERTY_WORDS.test(text)) return NOT_BOUND;
  return `I'm the offline assistant, so I only understand a few kinds of question.\n\n${help}`;
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
  // "propose …" and questions about proposals first: the reads would take "log a repair at MAN-004" for a lookup
  const proposal = await proposalReply(text, turn.tools, turn.signal);
  turn.signal.throwIfAborted();
  if (proposal !== null) return proposal;
  const fromPlatform = await platformReply(text, turn.tools, turn.signal);
  turn.signal.throwIfAborted();
  return fromPlatform ?? localReply(turn.messages, { proposals: hasProposalTools(turn.tools) });
}
