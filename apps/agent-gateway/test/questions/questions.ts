import { ATTENTION_QUESTIONS } from './questions-attention.ts';
import { COMPLIANCE_QUESTIONS } from './questions-compliance.ts';
import { CONVERSATION_QUESTIONS } from './questions-conversation.ts';
import { KNOWLEDGE_QUESTIONS } from './questions-knowledge.ts';
import { LETTINGS_QUESTIONS } from './questions-lettings.ts';
import { PLACE_QUESTIONS } from './questions-places.ts';

// What a UK letting agent asks, and what each answer must contain, computed from the bridge's own data (see
// demo-facts.ts). Written against what a property manager needs, not against today's replies: a question
// that fails here is a wrong or unhelpful answer.

export type { Question } from './expectations.ts';

export const QUESTIONS = [
  ...PLACE_QUESTIONS,
  ...COMPLIANCE_QUESTIONS,
  ...LETTINGS_QUESTIONS,
  ...CONVERSATION_QUESTIONS,
  ...ATTENTION_QUESTIONS,
  ...KNOWLEDGE_QUESTIONS,
];
