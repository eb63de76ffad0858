import {
  type ComplianceUpdateProposalBody,
  type DealProposalBody,
  type FinancialLogProposalBody,
  type Proposal,
  type ProposalsResponse,
  PROPOSAL_BODY_OF_KIND,
} from '@pa/contracts';
import type { z } from 'zod';
import { PROPOSAL_TOOL_NAMES } from '../../../tools/proposal-tools.ts';
import type { Toolbox } from '../../../tools/toolbox.ts';
import {
  daysBetween,
  formatDate,
  londonDay,
  money,
  moneyShort,
  relativeDays,
  TYPE_LABELS,
  words,
} from '../format.ts';
import { type PlatformReader, ToolFailure } from '../platform-reader.ts';
import type { ListStatus } from '../proposal-intent.ts';

// "What proposals are pending?": the worker's proposals on the platform, newest first, each in one line with its
// property's reference and the day it was proposed (London), and where they wait for review.

const MAX_LISTED = 20;
const KIND_WORDS: Record<Proposal['kind'], string> = {
  deal: 'deal',
  compliance_update: 'compliance update',
  financial_log: 'financial log',
};

export async function listReply(
  reader: PlatformReader,
  tools: Toolbox,
  signal: AbortSignal,
  status: ListStatus,
): Promise<string> {
  const view = await reader.portfolio();
  const record = await tools.call(PROPOSAL_TOOL_NAMES.proposals, { status, limit: 50 }, signal);
  signal.throwIfAborted();
  if (!record.ok) throw new ToolFailure(record);
  const res = JSON.parse(record.result) as ProposalsResponse & { review_queue_url?: string | null };
  const refs = new Map(view.properties.map((p) => [p.id, p.ref]));
  const heading =
    status === 'all'
      ? 'Proposals'
      : status === 'pending_review'
        ? 'Proposals pending review'
        : `${words(status).replace(/^./, (c) => c.toUpperCase())} proposals`;
  if (res.proposals.length === 0) {
    return status === 'pending_review'
      ? '**No proposals are waiting for review.**'
      : `There are **no ${status === 'all' ? '' : `${words(status)} `}proposals** on the platform.`;
  }
  const more = res.next_cursor !== null ? '+' : '';
  const lines = [`### ${heading}: ${res.proposals.length}${more}`, ''];
  for (const p of res.proposals.slice(0, MAX_LISTED)) lines.push(proposalLine(p, refs, view.today, status));
  if (res.proposals.length > MAX_LISTED) lines.push(`- … and ${res.proposals.length - MAX_LISTED} more`);
  const url = res.review_queue_url ?? null;
  if (res.proposals.some((p) => p.status === 'pending_review'))
    lines.push(
      '',
      `Pending proposals change nothing until a workspace admin approves them in the review queue${url ? `: ${url}` : '.'}`,
    );
  return lines.join('\n');
}

function proposalLine(p: Proposal, refs: Map<number, string>, today: string, status: ListStatus): string {
  const day = londonDay(p.created_at);
  const when = `${formatDate(day)} (${relativeDays(daysBetween(today, day))})`;
  const state = status === 'all' || status !== p.status ? ` — **${words(p.status)}**` : '';
  return `- **#${p.proposal_id}** ${KIND_WORDS[p.kind]}: ${proposalWhat(p, refs)} — proposed ${when}${state}`;
}

function proposalWhat(p: Proposal, refs: Map<number, string>): string {
  const body = PROPOSAL_BODY_OF_KIND[p.kind].safeParse(p.payload);
  if (!body.success) return 'details not readable';
  const at = (id: number | null) =>
    id === null ? 'not yet on the platform' : (refs.get(id) ?? `property ${id}`);
  switch (p.kind) {
    case 'deal': {
      const d = body.data as z.output<typeof DealProposalBody>;
      const facts = [d.value_pence !== undefined ? moneyShort(d.value_pence) : null, at(d.property_id)];
      return `${d.title} · ${facts.filter(Boolean).join(' · ')}`;
    }
    case 'compliance_update': {
      const c = body.data as z.output<typeof ComplianceUpdateProposalBody>;
      return `${TYPE_LABELS[c.compliance_type]} at ${at(c.property_id)}, issued ${formatDate(c.issue_date)}${c.reference_number ? `, ref ${c.reference_number}` : ''}`;
    }
    case 'financial_log': {
      const f = body.data as z.output<typeof FinancialLogProposalBody>;
      return `${f.direction} (${words(f.category)}) ${money(f.net_pence + f.vat_pence)} at ${at(f.property_id)}${f.payee_or_payer ? `, ${f.payee_or_payer}` : ''}`;
    }
  }
}
