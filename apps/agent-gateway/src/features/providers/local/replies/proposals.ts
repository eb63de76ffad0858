import {
  type ComplianceUpdateProposalBody,
  type DealProposalBody,
  type FinancialCategory,
  type FinancialLogProposalBody,
  type PortfolioProperty,
  type ProposalCreated,
} from '@pa/contracts';
import type { z } from 'zod';
import { PROPOSAL_TOOL_NAMES } from '../../../tools/proposal-tools.ts';
import type { ToolCallRecord, Toolbox } from '../../../tools/toolbox.ts';
import {
  addressLine,
  formatDate,
  londonDay,
  money,
  moneyShort,
  plural,
  truncate,
  TYPE_LABELS,
  words,
} from '../format.ts';
import { complianceType } from '../intent.ts';
import { PlatformReader, type PortfolioView, ToolFailure } from '../platform-reader.ts';
import { parseProposalIntent } from '../proposal-intent.ts';
import {
  contractorIn,
  counterpartyIn,
  dateIn,
  dealCounterpartyIn,
  dealSubjectIn,
  dealTypeIn,
  expiryIn,
  netAndVat,
  outcomeIn,
  propertyIn,
  ratingIn,
  referenceIn,
  TITLE_VERB,
} from '../proposal-words.ts';
import { listReply } from './proposal-list.ts';

// The local provider's "propose …" requests: a deal, a compliance update or a financial log said in
// plain words becomes a proposal through the worker's proposal tools, and "what proposals are pending?" lists
// them (proposal-list.ts). It asks for what is missing rather than guessing (which property, how much, when), and
// it never says a record was made: a proposal waits in the platform's review queue until an admin approves it.
// Without the proposal tools it explains how to switch them on. Dates ("today") are the platform's London day,
// as its portfolio answer states it, so that they agree with the statuses the platform computes. What a message
// asks is read by proposal-intent.ts; the words in it by proposal-words.ts.

/** True when the toolbox can submit proposals (PLATFORM_BRIDGE_WRITES and a bound worker). */
export function hasProposalTools(tools: Toolbox): boolean {
  return tools.definitions.some((d) => d.name === PROPOSAL_TOOL_NAMES.proposeDeal);
}

function canListProposals(tools: Toolbox): boolean {
  return tools.definitions.some((d) => d.name === PROPOSAL_TOOL_NAMES.proposals);
}

/**
 * The reply to a "propose …" request or a question about proposals; null when the message is neither (the
 * caller then answers it as a read). Never throws for a tool failure; rethrows an abort.
 */
export async function proposalReply(
  text: string,
  tools: Toolbox,
  signal: AbortSignal,
): Promise<string | null> {
  const intent = parseProposalIntent(text);
  if (!intent) return null;
  if (intent.kind === 'list') {
    if (!canListProposals(tools)) return null;
  } else if (!hasProposalTools(tools)) {
    return WRITES_OFF;
  }
  const reader = new PlatformReader(tools, signal);
  try {
    switch (intent.kind) {
      case 'list':
        return await listReply(reader, tools, signal, intent.status);
      case 'unclear':
        return UNCLEAR;
      case 'deal':
        return await proposeDeal(text, reader, tools, signal);
      case 'financial_log':
        return await proposeFinancialLog(text, reader, tools, signal);
      case 'compliance_update':
        return await proposeComplianceUpdate(text, reader, tools, signal);
    }
  } catch (err) {
    if (err instanceof ToolFailure && !signal.aborted) return readFailure(err.record);
    throw err;
  }
}

export const HOW_TO_ENABLE = [
  'To let me **propose** changes (new deals, compliance updates, financial logs), which then wait for a ' +
    'workspace admin’s approval in the platform’s review queue, three things must be on:',
  '1. `PLATFORM_BRIDGE_WRITES=true` in the assistant’s configuration;',
  '2. this assistant bound with a platform key that has the `bridge:propose` scope;',
  '3. the tenant’s `assistant_bridge_writes` flag on the platform.',
].join('\n');

const WRITES_OFF = [
  'I can only **read** the platform from here: I have not created or changed anything.',
  '',
  HOW_TO_ENABLE,
].join('\n');

const UNCLEAR = [
  'I cannot change or delete anything on the platform myself, and I have not.',
  '',
  'I can **propose** three kinds of change, each waiting for an admin’s approval in the review queue. For example:',
  '',
  '- **"Propose a deal to acquire 14 Oak Street for £250,000"**',
  '- **"Log a £120 + VAT repair at MAN-004 paid to Acme Plumbing"**',
  '- **"The new gas certificate for LON-003 was issued today, ref GS-12345"**',
].join('\n');

function readFailure(record: ToolCallRecord): string {
  return [
    '**I could not read the property platform just now**, so I have not proposed anything.',
    '',
    `Reason: ${record.result}`,
  ].join('\n');
}

function proposeFailure(record: ToolCallRecord): string {
  const lines = ['**I could not submit the proposal.**', '', `Reason: ${record.result}`];
  if (/bridge:propose|assistant_bridge_writes/.test(record.result)) lines.push('', HOW_TO_ENABLE);
  return lines.join('\n');
}

function reviewQueueLine(url: string | null): string {
  return url
    ? `It **awaits review** by a workspace admin in the platform’s review queue: ${url}`
    : 'It **awaits review** by a workspace admin in the platform’s review queue.';
}

async function submit(
  tools: Toolbox,
  signal: AbortSignal,
  tool: string,
  body: unknown,
  what: string,
): Promise<string> {
  const record = await tools.call(tool, body, signal);
  signal.throwIfAborted();
  if (!record.ok) return proposeFailure(record);
  const created = JSON.parse(record.result) as ProposalCreated & { review_queue_url?: string | null };
  return [
    `**Proposal #${created.proposal_id} submitted for review**: ${what}`,
    '',
    reviewQueueLine(created.review_queue_url ?? null),
    '',
    `Nothing changes on the platform until it is approved; it expires unreviewed on ${formatDate(londonDay(created.expires_at))}. ` +
      'Ask “what proposals are pending?” to follow it.',
  ].join('\n');
}

function reviewNotes(text: string): string {
  return `Proposed in the assistant chat: “${truncate(text.replace(/\s+/g, ' ').trim(), 500)}”`;
}

/** What to say when the property is missing, unknown or ambiguous; null when one was found. */
function propertyQuestion(
  match: ReturnType<typeof propertyIn>,
  view: PortfolioView,
  what: string,
): string | null {
  switch (match.kind) {
    case 'found':
      return null;
    case 'unknown':
      return [
        `I can't find ${match.said} in your portfolio, so I have not proposed anything.`,
        '',
        `Which property is ${what} for? Your references: ${view.properties
          .slice(0, 30)
          .map((p) => p.ref)
          .join(', ')}${view.properties.length > 30 ? ', …' : ''}.`,
      ].join('\n');
    case 'ambiguous':
      return [
        `That matches ${plural(match.matches.length, 'property', 'properties')}: ${match.matches
          .slice(0, 10)
          .map((p) => `**${p.ref}** ${addressLine(p)}`)
          .join('; ')}.`,
        '',
        `Which one is ${what} for? Say it again with the reference.`,
      ].join('\n');
    case 'none':
      return `Which property is ${what} for? Tell me its reference (e.g. ${view.properties[0]?.ref ?? 'MAN-004'}), postcode or street, and I will propose it.`;
  }
}

// ---- a deal ----------------------------------------------------------------------------------------------------

async function proposeDeal(
  text: string,
  reader: PlatformReader,
  tools: Toolbox,
  signal: AbortSignal,
): Promise<string> {
  const view = await reader.portfolio();
  const dealType = dealTypeIn(text.toLowerCase());
  const subject = dealSubjectIn(text);
  const match = propertyIn(text, view.properties);
  // Only an acquisition may be of a property that is not on the platform yet.
  const offPlatform = dealType === 'acquisition' && match.kind === 'none' && subject !== null;
  if (!offPlatform) {
    const question = propertyQuestion(match, view, `the ${words(dealType)}`);
    if (question) return question;
  }
  const property = match.kind === 'found' ? match.property : null;
  const about = property ? property.address.line1 : subject!;
  const value = netAndVat(text)?.net;
  const counterparty = dealCounterpartyIn(text);
  const body: z.input<typeof DealProposalBody> = {
    title: `${TITLE_VERB[dealType]} ${about}`.slice(0, 200),
    property_id: property?.id ?? null,
    deal_type: dealType,
    review_notes: reviewNotes(text),
    ...(value !== undefined ? { value_pence: value } : {}),
    ...(counterparty ? { counterparty } : {}),
  };
  const facts = [
    words(dealType),
    value !== undefined ? moneyShort(value) : 'no value given',
    property ? `**${property.ref}** ${addressLine(property)}` : 'a property not yet on the platform',
  ];
  if (counterparty) facts.push(`with ${counterparty}`);
  return submit(
    tools,
    signal,
    PROPOSAL_TOOL_NAMES.proposeDeal,
    body,
    `a deal, **${body.title}** (${facts.join(', ')}).`,
  );
}

// ---- a financial log ------------------------------------------------------------------------------------------

type Category = z.infer<typeof FinancialCategory>;

const CATEGORIES: [Category, RegExp][] = [
  ['ground_rent', /\bground rent\b/],
  ['service_charge', /\bservice charges?\b/],
  ['management_fee', /\bmanagement fees?\b/],
  ['letting_fee', /\b(letting|tenant find(ing)?) fees?\b/],
  ['council_tax', /\bcouncil tax\b/],
  ['licence_fee', /\b(licen[cs](e|ing) fees?|hmo licen[cs]e)\b/],
  ['insurance', /\binsurance\b/],
  ['utilities', /\b(utilit(y|ies)|electricity|water bill|gas bill|energy bill|broadband)\b/],
  [
    'compliance_cert',
    /\b(gas safety|cp12|eicr|epc|certificates?|cert|inspection|pat test(ing)?|legionella|fire risk)\b/,
  ],
  [
    'repair',
    /\b(repairs?|fix(ed|ing)?|plumb\w*|maintenance|boiler|leak\w*|replace\w*|call[- ]out|roof\w*|damp)\b/,
  ],
];

function categoryOf(lower: string): { category: Category; direction: 'income' | 'expense' } {
  if (/\bdeposits?\b/.test(lower))
    return /\b(return(ed)?|refund(ed)?|paid back|out)\b/.test(lower)
      ? { category: 'deposit_out', direction: 'expense' }
      : { category: 'deposit_in', direction: 'income' };
  const found = CATEGORIES.find(([, re]) => re.test(lower))?.[0];
  if (found) return { category: found, direction: 'expense' };
  if (/\brent\b/.test(lower)) return { category: 'rent_received', direction: 'income' };
  const income = /\b(income|received|receipt|paid by)\b/.test(lower);
  return { category: 'other', direction: income ? 'income' : 'expense' };
}

async function proposeFinancialLog(
  text: string,
  reader: PlatformReader,
  tools: Toolbox,
  signal: AbortSignal,
): Promise<string> {
  const view = await reader.portfolio();
  const lower = text.toLowerCase();
  const { category, direction } = categoryOf(lower);
  const amount = netAndVat(text);
  const match = propertyIn(text, view.properties);
  const question = propertyQuestion(match, view, `this ${direction}`);
  if (question) return question;
  if (!amount)
    return `How much was it? Tell me the amount in pounds, e.g. “£120 + VAT” or “£144 including VAT”, and I will propose the ${direction}.`;
  const property = (match as { property: PortfolioProperty }).property;
  const date = dateIn(text, view.today) ?? view.today;
  const payee = counterpartyIn(text, direction);
  const reference = referenceIn(text);
  const body: z.input<typeof FinancialLogProposalBody> = {
    property_id: property.id,
    date,
    direction,
    category,
    net_pence: amount.net,
    vat_pence: amount.vat,
    review_notes: reviewNotes(text),
    ...(payee ? { payee_or_payer: payee } : {}),
    ...(reference ? { reference } : {}),
  };
  const vat =
    amount.vat > 0 ? ` + VAT ${money(amount.vat)} = ${money(amount.net + amount.vat)}` : ' (no VAT)';
  const facts = [`net ${money(amount.net)}${vat}`, `dated ${formatDate(date)}`];
  if (payee) facts.push(`${direction === 'expense' ? 'paid to' : 'from'} ${payee}`);
  if (reference) facts.push(`ref ${reference}`);
  return submit(
    tools,
    signal,
    PROPOSAL_TOOL_NAMES.proposeFinancialLog,
    body,
    `a financial log, an **${direction}** (${words(category)}) at **${property.ref}** ${addressLine(property)}: ${facts.join(', ')}.`,
  );
}

/** "Gas safety certificate (CP12)" → "gas safety certificate (CP12)"; "EICR (…)" stays. */
function lowerFirst(label: string): string {
  return /^[A-Z][a-z]/.test(label) ? label[0]!.toLowerCase() + label.slice(1) : label;
}

// ---- a compliance update --------------------------------------------------------------------------------------

async function proposeComplianceUpdate(
  text: string,
  reader: PlatformReader,
  tools: Toolbox,
  signal: AbortSignal,
): Promise<string> {
  const view = await reader.portfolio();
  const type = complianceType(text.toLowerCase())!;
  const label = TYPE_LABELS[type];
  const match = propertyIn(text, view.properties);
  const question = propertyQuestion(match, view, `the ${lowerFirst(label)}`);
  if (question) return question;
  const property = (match as { property: PortfolioProperty }).property;
  const issued = dateIn(
    text.replace(/\b(expires?|expiring|expiry|valid (until|till|to)).*$/i, ''),
    view.today,
  );
  if (!issued)
    return `When was the ${lowerFirst(label)} for **${property.ref}** issued? Tell me the date (e.g. “issued today” or “issued on 3 June 2026”) and I will propose the update.`;
  const reference = referenceIn(text);
  const outcome = outcomeIn(text.toLowerCase());
  const rating = type === 'epc' ? ratingIn(text) : null;
  const expiry = expiryIn(text, view.today);
  const contractor = contractorIn(text);
  const body: z.input<typeof ComplianceUpdateProposalBody> = {
    property_id: property.id,
    compliance_type: type,
    issue_date: issued,
    review_notes: reviewNotes(text),
    ...(expiry ? { expiry_date: expiry } : {}),
    ...(reference ? { reference_number: reference } : {}),
    ...(outcome ? { outcome } : {}),
    ...(rating ? { rating } : {}),
    ...(contractor ? { contractor } : {}),
  };
  const facts = [`issued ${formatDate(issued)}`];
  facts.push(expiry ? `expires ${formatDate(expiry)}` : 'expiry from the type’s usual cycle');
  if (reference) facts.push(`ref ${reference}`);
  if (outcome) facts.push(outcome);
  if (rating) facts.push(`rating ${rating}`);
  if (contractor) facts.push(`by ${contractor.company ?? contractor.name}`);
  return submit(
    tools,
    signal,
    PROPOSAL_TOOL_NAMES.proposeComplianceUpdate,
    body,
    `a compliance update, **${label}** at **${property.ref}** ${addressLine(property)}: ${facts.join(', ')}.`,
  );
}
