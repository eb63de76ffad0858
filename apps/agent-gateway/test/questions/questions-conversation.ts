import { matches, matchesNot, mentions, mentionsNone, money, notFound, says, saysNot } from './checks.ts';
import { cleanRefs, expiredRefs } from './demo-facts.ts';
import { label, type Question } from './expectations.ts';

// The conversation itself: memory within a session, small talk, and what does not exist.

export const CONVERSATION_QUESTIONS: Question[] = [
  // ---- memory --------------------------------------------------------------------------------------------
  {
    id: 'memory-first-question',
    group: 'memory',
    say: ['Which gas safety certificates have expired?', 'What about MAN-004?', 'What did I ask you first?'],
    expect: () => [
      says('Which gas safety certificates have expired', 'the first question'),
      saysNot('What about MAN-004', 'that was the second question, not the first'),
    ],
  },
  {
    id: 'memory-name',
    group: 'memory',
    say: ['Hi, my name is Priya.', 'Which properties have arrears?', "What's my name?"],
    expect: () => [says('Priya', 'the name given')],
  },
  {
    id: 'memory-follow-up-rent',
    group: 'memory',
    say: ['Tell me about MAN-004', "What's the rent there?"],
    expect: (f) => [
      mentions(['MAN-004']),
      money(f.byRef('MAN-004').property.current_tenancy!.rent_pence, 'the rent'),
    ],
  },
  {
    id: 'memory-and-eicrs',
    group: 'memory',
    say: ['Which gas safety certificates have expired?', 'And EICRs?'],
    expect: (f) => [
      mentions(expiredRefs(f, 'eicr')),
      mentionsNone(cleanRefs(f, 'eicr'), 'have a valid EICR'),
      label('eicr'),
    ],
  },

  // ---- small talk ----------------------------------------------------------------------------------------
  {
    id: 'smalltalk-thanks',
    group: 'small talk',
    say: 'thanks',
    expect: (f) => [
      matches(/welcome|pleasure|no problem|glad|any time|anytime/i, 'acknowledge the thanks'),
      mentionsNone(f.refs, 'were not asked about'),
      matchesNot(/[\s\S]{400}/, 'a thank-you needs a short answer'),
    ],
  },
  {
    id: 'smalltalk-hello',
    group: 'small talk',
    say: 'hello',
    expect: (f) => [
      matches(/\b(hello|hi|good (morning|afternoon|evening))\b/i, 'greet back'),
      mentionsNone(f.refs, 'were not asked about'),
    ],
  },
  {
    id: 'smalltalk-who',
    group: 'small talk',
    say: 'who are you?',
    expect: () => [
      says('Porter', 'its name'),
      matchesNot(/gateway|provider|skill pack/i, 'a property manager should not see internal words'),
    ],
  },
  {
    id: 'smalltalk-help',
    group: 'small talk',
    say: 'What can you do?',
    expect: () => [
      matches(/compliance|certificate/i, 'mention compliance'),
      matches(/arrears/i, 'mention arrears'),
      matchesNot(
        /gateway|provider|skill pack|tenant slug/i,
        'a property manager should not see internal words',
      ),
    ],
  },

  // ---- things that do not exist --------------------------------------------------------------------------
  {
    id: 'missing-street',
    group: 'not found',
    say: 'tell me about 14 Oak Street',
    expect: (f) => notFound(f.refs),
  },
  { id: 'missing-ref', group: 'not found', say: 'XYZ-999', expect: (f) => notFound(f.refs) },
  { id: 'missing-postcode', group: 'not found', say: 'what about M1 1AA?', expect: (f) => notFound(f.refs) },
  {
    id: 'missing-ref-same-branch',
    group: 'not found',
    say: 'What needs attention at MAN-099?',
    expect: (f) => notFound(f.refs),
  },
  { id: 'missing-town', group: 'not found', say: 'Summarise Birmingham', expect: (f) => notFound(f.refs) },
];
