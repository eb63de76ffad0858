import type { ChatMessage } from '../../provider.ts';
import { askNext, blocks } from '../markdown.ts';

// The conversation itself: memory of what was said, small talk, help, and the honest "I cannot answer that".

export const EXAMPLE_QUESTIONS = [
  'Which gas safety certificates have expired?',
  'Which properties have arrears?',
  'What needs attention at MAN-004?',
];

const PROPOSAL_EXAMPLES = [
  'Propose a deal to acquire 14 Oak Street for £250,000',
  'Log a £120 + VAT repair at MAN-004 paid to Acme Plumbing',
  'The new gas certificate for LON-003 was issued today, ref GS-12345',
  'What proposals are pending?',
];

export function helpReply(proposals: boolean): string {
  return blocks(
    'I am Porter, your lettings assistant. I read your portfolio and answer questions about it, for example:',
    [
      '- **"Give me a portfolio overview"** or "Summarise Leeds"',
      '- **"Which gas safety certificates have expired?"** or "What is due in the next 30 days?"',
      '- **"Which properties have arrears?"** and "Which tenancies end in the next 60 days?"',
      '- **"What needs attention at MAN-004?"**',
      '- **"Any deal actions overdue?"** and "Which emails need a reply?"',
      '- **"Give me my daily briefing"**',
    ].join('\n'),
    proposals
      ? `I can also **propose** changes, which wait for a workspace admin’s approval in the platform’s review queue:\n\n${PROPOSAL_EXAMPLES.map((q) => `- "${q}"`).join('\n')}`
      : null,
    'Commands: `/help`, `/clear`.',
    askNext(EXAMPLE_QUESTIONS),
  );
}

export function lastUser(messages: ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--)
    if (messages[i]!.role === 'user') return messages[i]!.content;
  return '';
}

function earlierUserMessages(messages: ChatMessage[]): string[] {
  return messages
    .filter((m) => m.role === 'user')
    .map((m) => m.content)
    .slice(0, -1);
}

const NAME = /\bmy name is ([\p{L}][\p{L}'-]{0,40})/iu;

/** Replies about the conversation itself (names, what was said); null when the message is about something else. */
export function memoryReply(messages: ChatMessage[]): string | null {
  const text = lastUser(messages).trim();
  const lower = text.toLowerCase().replace(/[’‘]/g, "'");

  const name = NAME.exec(text);
  if (name) return `Nice to meet you, **${name[1]}**. I'll remember that for this conversation.`;

  if (/\bwhat('?s| is) my name\b|\bdo you (know|remember) my name\b/.test(lower)) {
    for (const earlier of earlierUserMessages(messages).reverse()) {
      const m = NAME.exec(earlier);
      if (m) return `Your name is **${m[1]}**.`;
    }
    return "You haven't told me your name yet.";
  }

  if (/\bwhat (did|was) (i|my) (say|ask|question|message)\w*\b|\bwhat have i asked\b/.test(lower)) {
    const earlier = earlierUserMessages(messages);
    if (earlier.length === 0) return 'This is the first thing you have said in this conversation.';
    // straight quotes: the web chat's suggestion line is the only place for curly ones
    const quote = (t: string) => `"${t.replace(/[“”]/g, '"')}"`;
    if (/\b(first|start|begin\w*|earliest|originally)\b/.test(lower))
      return `The first thing you asked was: ${quote(earlier[0]!)}`;
    return `You said: ${quote(earlier[earlier.length - 1]!)}`;
  }
  return null;
}

/** Short, kind answers to greetings and thanks; null for anything else. */
export function smallTalkReply(text: string): string | null {
  const lower = text
    .toLowerCase()
    .replace(/[’‘]/g, "'")
    .replace(/[!.?,]+/g, ' ')
    .trim();
  if (
    /^(thanks|thank you|thank you very much|thanks a lot|many thanks|cheers|ta|great thanks|perfect thanks|brilliant|great|lovely|ok thanks|okay thanks)( porter)?$/.test(
      lower,
    )
  )
    return blocks(
      "You're welcome. Ask me anything else about your properties whenever you like.",
      askNext(EXAMPLE_QUESTIONS.slice(0, 2)),
    );
  if (
    /^(hi|hello|hey|hiya|good (morning|afternoon|evening)|morning|afternoon|evening)( there| porter)?$/.test(
      lower,
    )
  ) {
    const greeting = /morning|afternoon|evening/.exec(lower)?.[0];
    return blocks(
      `${greeting ? `Good ${greeting}` : 'Hello'}! I'm Porter, your lettings assistant: ask me about your properties, compliance, rent, deals or email.`,
      askNext(['Give me my daily briefing', ...EXAMPLE_QUESTIONS.slice(0, 2)]),
    );
  }
  if (
    /^(who|what) are you( exactly)?$|^what('s| is) your name$|^are you (a bot|human|real|an ai)$/.test(lower)
  )
    return blocks(
      "I'm Porter, a lettings assistant. I read your property platform (properties, tenancies, compliance, deals and email) and answer questions about it. I cannot change anything myself.",
      askNext(['Give me a portfolio overview', EXAMPLE_QUESTIONS[0]!]),
    );
  if (/^how are you( doing| today)?$/.test(lower))
    return blocks(
      "I'm well, thank you. How can I help with your properties today?",
      askNext(['Give me my daily briefing']),
    );
  if (/^(bye|goodbye|see you|see ya|that's all|that is all|nothing else)( for now| thanks)?$/.test(lower))
    return "Goodbye for now. I'll be here when you need me.";
  return null;
}

/** A question neither the rules nor the platform can answer: said honestly, with questions that work. */
export function cannotAnswerReply(): string {
  return blocks(
    "Sorry, I can't answer that one. I answer questions about your portfolio: properties, compliance, tenancies, rent, deals and email.",
    askNext(EXAMPLE_QUESTIONS),
  );
}
