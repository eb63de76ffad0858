import type { Proposal } from '@pa/contracts';
import { complianceType } from './intent.ts';

// What a "propose …" request or a question about proposals asks, from the words alone (pure), beside intent.ts
// which reads the questions about the platform's data. The local provider tries this first: the reads would
// take "log a repair at MAN-004" for a lookup. The replies are in replies/proposals.ts.

export type ListStatus = Proposal['status'] | 'all';
export type ProposalIntent =
  | { kind: 'list'; status: ListStatus }
  | { kind: 'deal' }
  | { kind: 'financial_log' }
  | { kind: 'compliance_update' }
  | { kind: 'unclear' };

const ASKING =
  /^\s*(?:please\s+)?(?:(?:can|could|would|will) you\s+)?(?:please\s+)?(propose|suggest|submit|raise|add|create|record|log|enter|book|register|put in)\b/i;
// Any other request to change something: with the proposal tools, say what can be proposed instead.
const CHANGING =
  /^\s*(?:please\s+)?(?:(?:can|could|would|will) you\s+)?(?:please\s+)?(?:propose|suggest|submit|create|add|record|log|register|update|change|edit|delete|remove|cancel|mark|book)\b/i;
const QUESTION =
  /^\s*(who|what|when|where|which|why|how|is|are|was|were|do|does|did|has|have|any|show|list|tell)\b|\?\s*$/i;
const DEAL_WORDS =
  /\b(deals?|acqui\w*|purchas\w*|buy|dispos\w*|sell|sale|refinanc\w*|remortgag\w*|management instruction)\b/i;
const MONEY_WORDS =
  /£\s?\d|\b(financial log|expense|income|invoice|bill|payment|paid|receipt|received|fee|cost)\b/i;
const DONE_WORDS =
  /\b(issued|done|carried out|completed|renewed|passed|failed|received|inspected|tested|serviced|obtained|granted|came back)\b/i;

// The order matters: a request naming a financial log is one even when it names a deal, a deal is a deal
// whatever sum it names ("propose a deal for £250,000"), and only then does money make a financial log ("log a
// £90 gas safety check fee") before a compliance type makes an update.
export function parseProposalIntent(text: string): ProposalIntent | null {
  const lower = text.toLowerCase();
  const asking = ASKING.exec(text);
  if (!asking && /\bproposals?\b/.test(lower)) return { kind: 'list', status: listStatus(lower) };
  if (asking && /\bfinancial log\b/.test(lower)) return { kind: 'financial_log' };
  if (asking && DEAL_WORDS.test(text)) return { kind: 'deal' };
  if (asking && MONEY_WORDS.test(text)) return { kind: 'financial_log' };
  const type = complianceType(lower);
  if (type && (asking || (!QUESTION.test(text) && (DONE_WORDS.test(text) || /\bnew\b/.test(lower)))))
    return { kind: 'compliance_update' };
  if (CHANGING.test(text)) return { kind: 'unclear' };
  return null;
}

function listStatus(lower: string): ListStatus {
  if (/\b(pending|waiting|awaiting|open|outstanding|to review|unreviewed|in review)\b/.test(lower))
    return 'pending_review';
  if (/\b(approved|accepted)\b/.test(lower)) return 'approved';
  if (/\b(rejected|declined|refused)\b/.test(lower)) return 'rejected';
  if (/\bexpired\b/.test(lower)) return 'expired';
  if (/\bwithdrawn\b/.test(lower)) return 'withdrawn';
  return 'all';
}
