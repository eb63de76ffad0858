import type { Toolbox, ToolCallRecord } from '../../tools/toolbox.ts';
import { followUpIntent, withContext } from './follow-up.ts';
import { type Intent, parseIntent } from './intent.ts';
import { PlatformReader, type PortfolioView, ToolFailure } from './platform-reader.ts';
import { mentionedProperties, placeMatches, resolveTarget } from './property-match.ts';
import { attentionReply } from './replies/attention.ts';
import { briefingReply } from './replies/briefing.ts';
import { complianceReply, epcBelowEReply } from './replies/compliance.ts';
import { dealsReply } from './replies/deals.ts';
import { emailReply } from './replies/email.ts';
import { knowledgeReply } from './replies/knowledge.ts';
import { arrearsReply, periodicReply, tenanciesReply, voidsReply } from './replies/lettings.ts';
import { notFoundReply } from './replies/not-found.ts';
import { areaReply, hmosReply, overviewReply, rentRankingReply, rentRollReply } from './replies/portfolio.ts';
import { propertyReply } from './replies/property.ts';
import type { PortfolioProperty } from '@pa/contracts';

// The local provider's answers from real platform data: the question's intent (intent.ts), the data read
// through the turn's toolbox (platform-reader.ts), and one writer per kind of answer (replies/).

/**
 * The reply to `text` from platform data, or null when the question is not about the platform (the caller
 * then answers with its conversational rules). Never throws for a tool failure; rethrows an abort.
 */
export async function platformReply(
  said: string,
  tools: Toolbox,
  signal: AbortSignal,
  /** the user's earlier messages in this conversation, oldest first */
  earlier: string[] = [],
): Promise<string | null> {
  const text = withContext(said, earlier);
  const intent = followUpIntent(said, parseIntent(text), earlier);
  if (!intent) return null;
  const reader = new PlatformReader(tools, signal);
  try {
    return await answer(intent, text, reader, tools);
  } catch (err) {
    if (err instanceof ToolFailure && !signal.aborted) return failureReply(err.record);
    throw err;
  }
}

/** The properties a question narrows itself to ("arrears in Leeds"), or null for the whole portfolio. */
function scopeOf(text: string, view: PortfolioView): PortfolioProperty[] | null {
  const mentioned = mentionedProperties(text, view.properties);
  return mentioned.length ? mentioned : null;
}

/** The intents answered from the portfolio: all but those whose answer reads something else first. */
type PortfolioIntent = Exclude<
  Intent,
  { kind: 'read-only' | 'briefing' | 'attention' | 'emails' | 'deals' | 'knowledge' }
>;

// Both switches below name every kind and end in `satisfies never`, so a new kind of intent without an answer
// fails to compile instead of being answered with the overview.

async function answer(intent: Intent, text: string, reader: PlatformReader, tools: Toolbox): Promise<string> {
  switch (intent.kind) {
    case 'read-only':
      return READ_ONLY;
    case 'briefing':
      return briefingReply(reader);
    case 'attention':
      return attentionReply(reader, intent.window);
    case 'emails':
      return emailReply(reader, intent.hours, intent.category);
    case 'deals':
      return dealsReply(reader, intent, text);
    case 'knowledge':
      return knowledgeReply(reader, tools, await reader.portfolio(), text);
    default:
      // every other answer starts from the portfolio
      return portfolioAnswer(intent, text, reader, await reader.portfolio());
  }
}

async function portfolioAnswer(
  intent: PortfolioIntent,
  text: string,
  reader: PlatformReader,
  view: PortfolioView,
): Promise<string> {
  switch (intent.kind) {
    case 'property': {
      const found = resolveTarget(intent.target, view.properties);
      if (!found) return notFoundReply(intent.target, view);
      return propertyReply(reader, view, found, intent.focus);
    }
    case 'epc-below-e':
      return epcBelowEReply(reader, view, scopeOf(text, view));
    case 'arrears':
      return arrearsReply(view, scopeOf(text, view));
    case 'tenancies':
      return tenanciesReply(view, intent, scopeOf(text, view));
    case 'hmos':
      return hmosReply(view);
    case 'periodic':
      return periodicReply(view);
    case 'rent-ranking':
      return rentRankingReply(view, intent.order);
    case 'voids':
      return voidsReply(view, scopeOf(text, view));
    case 'rent-roll': {
      const scope = scopeOf(text, view);
      return rentRollReply(view, scope ? { place: placeName(scope), list: scope } : null);
    }
    case 'compliance': {
      const scope = scopeOf(text, view);
      if (scope?.length === 1) return propertyReply(reader, view, scope[0]!, intent.type);
      return complianceReply(reader, view, intent, scope);
    }
    case 'overview':
      return overviewReply(view);
    case 'lookup': {
      const matches = intent.place
        ? placeMatches(intent.place, view.properties)
        : mentionedProperties(text, view.properties);
      if (matches.length === 1) return propertyReply(reader, view, matches[0]!, intent.focus);
      if (matches.length > 1)
        return areaReply(view, intent.place ? titleCase(intent.place) : placeName(matches), matches);
      if (intent.place) return notFoundReply(intent.place, view);
      return overviewReply(view);
    }
    default:
      intent satisfies never;
      throw new Error(`No answer for the intent ${JSON.stringify(intent)}`);
  }
}

function titleCase(place: string): string {
  return place.replace(/\b\p{Ll}/gu, (c) => c.toUpperCase());
}

/** "Leeds" when the properties share a town, else "the matching properties". */
function placeName(list: PortfolioProperty[]): string {
  const towns = new Set(list.map((p) => p.address.town));
  return towns.size === 1 ? [...towns][0]! : 'The matching properties';
}

const READ_ONLY = [
  'I can only **read** the platform from here: I have not created or changed anything.',
  '',
  'Proposals (new deals, compliance updates, financial logs) need the proposal tools, which are not enabled for ' +
    'this assistant. You can make the change in the platform itself, where it will be reviewed.',
].join('\n');

function failureReply(record: ToolCallRecord): string {
  return [
    '**I could not read the property platform just now**, so I cannot answer that reliably.',
    '',
    `Reason: ${record.result}`,
    '',
    'Nothing has been changed. If the key was refused, connect the assistant again with a valid platform key; ' +
      'otherwise try again in a moment.',
  ].join('\n');
}
