import {
  ComplianceUpdateProposalBody,
  DealProposalBody,
  FinancialLogProposalBody,
  type ProposalKind,
} from '@pa/contracts';
import type { z } from 'zod';

/** A proposal's body together with its kind, so that code switching on the kind gets the body's type. */
export type KindedBody =
  | { kind: 'deal'; body: DealProposalBody }
  | { kind: 'compliance_update'; body: ComplianceUpdateProposalBody }
  | { kind: 'financial_log'; body: FinancialLogProposalBody };

export type BodyParse = { success: true; data: KindedBody } | { success: false; issues: z.core.$ZodIssue[] };

/** Parses a body with its kind's schema (PROPOSAL_BODY_OF_KIND), as submission and approval with edits do. */
export function parseKindedBody(kind: ProposalKind, value: unknown): BodyParse {
  switch (kind) {
    case 'deal': {
      const r = DealProposalBody.safeParse(value);
      return r.success
        ? { success: true, data: { kind, body: r.data } }
        : { success: false, issues: r.error.issues };
    }
    case 'compliance_update': {
      const r = ComplianceUpdateProposalBody.safeParse(value);
      return r.success
        ? { success: true, data: { kind, body: r.data } }
        : { success: false, issues: r.error.issues };
    }
    case 'financial_log': {
      const r = FinancialLogProposalBody.safeParse(value);
      return r.success
        ? { success: true, data: { kind, body: r.data } }
        : { success: false, issues: r.error.issues };
    }
  }
}

/** A stored payload (valid when it was stored; the schema may only have grown stricter since). */
export function storedBody(kind: ProposalKind, payload: unknown): KindedBody {
  const r = parseKindedBody(kind, payload);
  if (!r.success) throw new Error(`stored ${kind} proposal payload no longer matches its schema`);
  return r.data;
}
