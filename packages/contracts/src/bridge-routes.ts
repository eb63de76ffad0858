import { z } from 'zod';
import {
  ComplianceResponse,
  DealsQuery,
  DealsResponse,
  EmailActivityQuery,
  EmailActivityResponse,
  MailboxesResponse,
  PortfolioComplianceQuery,
  PortfolioComplianceResponse,
  PortfolioQuery,
  PortfolioResponse,
  Property,
  PropertyIdParams,
  TenantCopiesQuery,
  TenantCopiesResponse,
} from './bridge.ts';
import { operationsRoutes } from './health.ts';
import {
  KnowledgeChangesQuery,
  KnowledgeChangesResponse,
  KnowledgeSearchQuery,
  KnowledgeSearchResponse,
} from './knowledge.ts';
import { mcpPaths, mcpRoutes } from './mcp-routes.ts';
import { text } from './text.ts';
import {
  ComplianceUpdateProposalBody,
  DealProposalBody,
  FinancialLogProposalBody,
  IDEMPOTENCY_KEY_MAX,
  Proposal,
  ProposalCreated,
  ProposalIdParams,
  ProposalsQuery,
  ProposalsResponse,
} from './proposals.ts';
import {
  AdminProposalParams,
  ApproveRequest,
  ApproveResponse,
  AuditResponse,
  RejectRequest,
  RejectResponse,
  ReviewQueueQuery,
  ReviewQueueResponse,
} from './review-queue.ts';
import { ADMIN_BASE, REVIEW_QUEUE_PAGE } from './admin-paths.ts';
import { remoteAccessRoutes } from './remote-access-routes.ts';
import { defineRoutes } from './routes.ts';

// Every endpoint of the platform bridge app: the bridge under BRIDGE_BASE (reads, and the proposals of phase 2),
// the review queue's admin API under ADMIN_BASE and its page, and the operations routes.

export const BRIDGE_BASE = '/api/assistant-bridge';
/** The MCP endpoint and its RFC 9728 metadata address (mcp-routes.ts). */
export const MCP_PATHS = mcpPaths(BRIDGE_BASE);
export { ADMIN_BASE, REMOTE_ACCESS_PAGE, REVIEW_QUEUE_PAGE } from './admin-paths.ts';

const bearer = [{ remoteApiKey: [] }];
/** On every successful answer of a route that needs a key (bridge-openapi.ts lists them on each). */
export const RATE_LIMIT_HEADERS = {
  RateLimit: { description: 'IETF draft-8 `RateLimit`: remaining quota and reset of the per-key window' },
  'RateLimit-Policy': { description: 'IETF draft-8 `RateLimit-Policy`: the per-key limit and window' },
};
// What every bridge path may answer before its own handler runs: authentication, the tenant flag, the budget.
// (and the key is looked up in the database: 503 while it cannot be reached)
const gate = {
  401: ['invalid-api-key'],
  403: ['insufficient-scope'],
  429: ['rate-limited'],
  503: ['database-unavailable'],
} as const;
const notEnabled = ['bridge-not-enabled'] as const;
const writesNotEnabled = ['bridge-not-enabled', 'writes-not-enabled'] as const;
const jsonBody = { 413: ['payload-too-large'], 415: ['unsupported-media-type'] } as const;

const idempotencyKey = [
  {
    name: 'Idempotency-Key',
    required: true,
    description: `1–${IDEMPOTENCY_KEY_MAX} characters, bare or quoted; one fresh key per proposal, sent again unchanged on its retries. Scoped to the tenant and this endpoint and kept 24 h: the same key with the same body answers the first response again (with \`Idempotent-Replayed: true\`) and creates nothing; with another body → 422 \`idempotency-key-reused\`; while the first request is still running → 409 \`idempotency-key-in-flight\`.`,
    schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX },
  },
] as const;

const proposalCreated = {
  description: 'The proposal, waiting for review. No platform record exists until an admin approves it.',
  schema: ProposalCreated,
  headers: {
    Location: { description: 'the proposal: `/api/assistant-bridge/proposals/{proposal_id}`' },
    'Idempotent-Replayed': {
      description: '`true` when this is the stored answer of an earlier request with the same key and body',
    },
  },
};
const proposalProblems = {
  400: ['validation-failed', 'malformed-json', 'idempotency-key-missing'],
  ...gate,
  ...jsonBody,
  404: writesNotEnabled,
  409: ['idempotency-key-in-flight'],
  422: ['unknown-property', 'idempotency-key-reused'],
  429: ['rate-limited', 'proposal-quota-exceeded'],
} as const;
const proposalDescription = (what: string) =>
  `${what} Needs a key with the \`bridge:propose\` scope and the tenant flags \`assistant_external_bridge\` and \`assistant_bridge_writes\`. \`property_id\` must be one of the tenant’s properties (else 422 \`unknown-property\`). At most PROPOSAL_PENDING_LIMIT (default 100) proposals wait for review per tenant (else 429 \`proposal-quota-exceeded\`, whose \`Retry-After: 3600\` is a hint only: room comes back as proposals are decided, withdrawn or expire); a proposal not reviewed within PROPOSAL_TTL_DAYS (default 14) expires.`;

const admin = [{ adminApiKey: [] }];
// What every admin path may answer before its handler: the admin key, its scope, the flag, the budget.
const adminGate = {
  401: ['invalid-api-key'],
  403: ['insufficient-scope'],
  404: ['review-queue-not-enabled'],
  429: ['rate-limited'],
  503: ['database-unavailable'],
} as const;

export const bridgeRoutes = defineRoutes({
  getPortfolio: {
    method: 'get',
    path: `${BRIDGE_BASE}/portfolio`,
    summary: 'Portfolio summary and one page of properties',
    description:
      'Keyset pagination by property id: pass `next_cursor` back as `cursor` until it is null. The summary always covers the whole portfolio. Sent without an `ETag`: `as_of`, the moment of the read, makes every answer differ, so none could ever match.',
    tags: ['bridge'],
    security: bearer,
    query: PortfolioQuery,
    responses: { 200: { description: 'The portfolio', schema: PortfolioResponse } },
    problems: { 400: ['validation-failed'], ...gate, 404: notEnabled },
  },
  getProperty: {
    method: 'get',
    path: `${BRIDGE_BASE}/properties/:id`,
    summary: 'One property, with its current tenancy and compliance summary',
    description: 'Carries an `ETag`; send it back in `If-None-Match` to get 304 when nothing changed.',
    tags: ['bridge'],
    security: bearer,
    params: PropertyIdParams,
    responses: {
      200: {
        description: 'The property',
        schema: Property,
        headers: { ETag: { description: 'entity tag' } },
      },
      304: { description: 'Not modified since the ETag in If-None-Match' },
    },
    problems: { 400: ['validation-failed'], ...gate, 404: ['property-not-found', ...notEnabled] },
  },
  getPropertyCompliance: {
    method: 'get',
    path: `${BRIDGE_BASE}/properties/:id/compliance`,
    summary: "A property's compliance items with computed status, and the required types with no item",
    description:
      'Statuses are judged on today’s date in Europe/London: `missing`, then `expired`, then `expiring_soon` (within the type’s window or with a remedial fix open), else `valid`. The property’s status is its worst item. Sent without an `ETag`: `as_of`, the moment of the read, makes every answer differ, so none could ever match.',
    tags: ['bridge'],
    security: bearer,
    params: PropertyIdParams,
    responses: { 200: { description: 'Compliance', schema: ComplianceResponse } },
    problems: { 400: ['validation-failed'], ...gate, 404: ['property-not-found', ...notEnabled] },
  },
  listPortfolioCompliance: {
    method: 'get',
    path: `${BRIDGE_BASE}/portfolio/compliance`,
    summary: 'Every compliance item needing attention across the portfolio, by property',
    description:
      'The tenant’s properties that have an item or a missing required type in one of the `status` asked for (`expired`, `expiring_soon`, `missing`; default all three), each with its `ref`, its own status, those items and its missing types. Items and statuses are exactly those of `GET /properties/{id}/compliance` for the same property, judged on today’s date in Europe/London; valid items are never listed. Ordered by property id, items by type: sort by urgency on your side. Keyset pagination over properties (`limit` properties per page): pass `next_cursor` back as `cursor` until it is null. One read answers what would otherwise take one compliance read per property; the agent gateway’s worker tool `platform-get-compliance` makes it when called without a `property_id` (with one, it reads that property’s compliance). Sent without an `ETag`: `as_of`, the moment of the read, makes every answer differ, so none could ever match.',
    tags: ['bridge'],
    security: bearer,
    query: PortfolioComplianceQuery,
    responses: {
      200: {
        description: 'Compliance needing attention',
        schema: PortfolioComplianceResponse,
      },
    },
    problems: { 400: ['validation-failed'], ...gate, 404: notEnabled },
  },
  listTenantCopies: {
    method: 'get',
    path: `${BRIDGE_BASE}/compliance/tenant-copies`,
    summary: 'Gas safety records and EICRs whose copy the tenant is still owed, across the portfolio',
    description:
      'The tenant’s gas safety and EICR items whose `tenant_copy_status` is one of the `status` asked for (`due`, `overdue`; default `overdue`), each with its property’s id and `ref`. A copy is owed to the current tenancy within 28 days of the check, or by the tenancy’s start when the check was before it (28 days exactly is still `due`); it is served when `served_to_tenant_at` is on or after the check. The item’s own `status` is unchanged (a valid certificate can owe a copy), which is why `GET /portfolio/compliance`, listing items that are not valid, does not list these. Items are exactly those of `GET /properties/{id}/compliance`, judged on today’s date in Europe/London; ordered by property id, then item id. Keyset pagination over items (`limit` items per page): pass `next_cursor` back as `cursor` until it is null. Under `/compliance/…` rather than `/portfolio/compliance/…`, whose `status` means the certificate’s own status. One read answers what would otherwise take one compliance read per let property; the agent gateway’s worker tool `platform-get-tenant-copies` makes it. Sent without an `ETag`: `as_of`, the moment of the read, makes every answer differ.',
    tags: ['bridge'],
    security: bearer,
    query: TenantCopiesQuery,
    responses: {
      200: { description: 'Tenant copies owed', schema: TenantCopiesResponse },
    },
    problems: { 400: ['validation-failed'], ...gate, 404: notEnabled },
  },
  listDeals: {
    method: 'get',
    path: `${BRIDGE_BASE}/deals`,
    summary: 'Deals, open ones by default',
    tags: ['bridge'],
    security: bearer,
    query: DealsQuery,
    responses: { 200: { description: 'Deals', schema: DealsResponse } },
    problems: { 400: ['validation-failed'], ...gate, 404: notEnabled },
  },
  listEmailActivity: {
    method: 'get',
    path: `${BRIDGE_BASE}/email-activity`,
    summary: 'Email activity of the last `hours` hours, newest first (snippets only, never full bodies)',
    tags: ['bridge'],
    security: bearer,
    query: EmailActivityQuery,
    responses: { 200: { description: 'Email activity', schema: EmailActivityResponse } },
    problems: { 400: ['validation-failed'], ...gate, 404: notEnabled },
  },
  listMailboxes: {
    method: 'get',
    path: `${BRIDGE_BASE}/mailboxes`,
    summary: 'Mailboxes the platform polls (the agent platform must not connect these itself)',
    tags: ['bridge'],
    security: bearer,
    responses: { 200: { description: 'Mailboxes', schema: MailboxesResponse } },
    problems: { 400: ['validation-failed'], ...gate, 404: notEnabled },
  },
  getKnowledgeChanges: {
    method: 'get',
    path: `${BRIDGE_BASE}/knowledge/changes`,
    summary: "The tenant's knowledge documents changed since a cursor, for syncing a copy",
    description:
      'Needs `bridge:read`. Omit `cursor` to read the whole corpus from the start; then pass `next_cursor` back as `cursor` (it is always returned, even with no changes) and read again at once while `has_more` is true. Each change is a document in its latest state or a tombstone (`deleted: true`) for one removed; a document edited twice between two reads appears once. Following `next_cursor` never misses or repeats a change, even while several writers are at work: a tenant’s corpus writers commit in the order of the changes’ positions. Apply changes by `id`, in the order given. Sent without an `ETag`.',
    tags: ['knowledge'],
    security: bearer,
    query: KnowledgeChangesQuery,
    responses: { 200: { description: 'Changes', schema: KnowledgeChangesResponse } },
    problems: { 400: ['validation-failed'], ...gate, 404: notEnabled },
  },
  searchKnowledge: {
    method: 'get',
    path: `${BRIDGE_BASE}/knowledge/search`,
    summary: "Search the tenant's knowledge documents",
    description:
      'Needs `bridge:read`. Ranked full-text search (English stemming, the title weighing more than the body) over the tenant’s documents as they stand now (removed ones never match), each hit with a snippet of its body around the matches. With `property`, that property’s documents come first, then the agency-wide ones; other properties’ documents are left out. Documents with every word of `q` come before those with only some. The MCP tool `search_knowledge` is this read.',
    tags: ['knowledge'],
    security: bearer,
    query: KnowledgeSearchQuery,
    responses: { 200: { description: 'Matches, best first', schema: KnowledgeSearchResponse } },
    problems: { 400: ['validation-failed'], ...gate, 404: notEnabled },
  },
  proposeDeal: {
    method: 'post',
    path: `${BRIDGE_BASE}/proposals/deal`,
    summary: 'Propose a deal',
    description: proposalDescription(
      'Submits a deal for review; approval creates the deal with `source: proposal`. `property_id` is required and may be null only for an acquisition of a property not yet on the platform.',
    ),
    tags: ['proposals'],
    security: bearer,
    headers: idempotencyKey,
    body: DealProposalBody,
    responses: { 201: proposalCreated },
    problems: proposalProblems,
  },
  proposeComplianceUpdate: {
    method: 'post',
    path: `${BRIDGE_BASE}/proposals/compliance-update`,
    summary: 'Propose a compliance update (a new certificate or check)',
    description: proposalDescription(
      'Submits new dates and details for one compliance type of a property; approval updates the property’s item of that type, or creates it. `expiry_date` defaults to the issue date plus the type’s cycle.',
    ),
    tags: ['proposals'],
    security: bearer,
    headers: idempotencyKey,
    body: ComplianceUpdateProposalBody,
    responses: { 201: proposalCreated },
    problems: proposalProblems,
  },
  proposeFinancialLog: {
    method: 'post',
    path: `${BRIDGE_BASE}/proposals/financial-log`,
    summary: 'Propose a financial log entry (income or expense)',
    description: proposalDescription(
      'Submits an income or expense line; approval creates the financial log with `source_proposal_id` and `gross_pence` = net + VAT.',
    ),
    tags: ['proposals'],
    security: bearer,
    headers: idempotencyKey,
    body: FinancialLogProposalBody,
    responses: { 201: proposalCreated },
    problems: proposalProblems,
  },
  listProposals: {
    method: 'get',
    path: `${BRIDGE_BASE}/proposals`,
    summary: 'The tenant’s proposals, newest first',
    description: 'Needs `bridge:read`. Keyset pagination: pass `next_cursor` back as `cursor`.',
    tags: ['proposals'],
    security: bearer,
    query: ProposalsQuery,
    responses: { 200: { description: 'Proposals', schema: ProposalsResponse } },
    problems: { 400: ['validation-failed'], ...gate, 404: notEnabled },
  },
  getProposal: {
    method: 'get',
    path: `${BRIDGE_BASE}/proposals/:id`,
    summary: 'One of the tenant’s proposals',
    description: 'Needs `bridge:read`. Another tenant’s proposal answers 404, as one that does not exist.',
    tags: ['proposals'],
    security: bearer,
    params: ProposalIdParams,
    responses: { 200: { description: 'The proposal', schema: Proposal } },
    problems: { 400: ['validation-failed'], ...gate, 404: ['proposal-not-found', ...notEnabled] },
  },
  withdrawProposal: {
    method: 'delete',
    path: `${BRIDGE_BASE}/proposals/:id`,
    summary: 'Withdraw a proposal that is still waiting for review',
    description:
      'Needs `bridge:propose`. The proposal becomes `withdrawn` (final) and the answer is the proposal. A decided proposal → 409 `proposal-not-pending` with `current_status`.',
    tags: ['proposals'],
    security: bearer,
    params: ProposalIdParams,
    responses: { 200: { description: 'The withdrawn proposal', schema: Proposal } },
    problems: {
      400: ['validation-failed'],
      ...gate,
      404: ['proposal-not-found', ...writesNotEnabled],
      409: ['proposal-not-pending'],
    },
  },
  getReviewQueue: {
    method: 'get',
    path: `${ADMIN_BASE}/review-queue`,
    summary: 'Proposals for review, with what they would change and what to look out for',
    description:
      'Needs an admin key (`padm_`) with `review:read` and the tenant flag `assistant_bridge_review_queue`. Each item carries a one-line summary, the payload, the property, and while it is pending a diff against the current record where one exists and warnings: a duplicate open deal (same title, ignoring case and spacing), the compliance status the update would cause (today, Europe/London), a date in the future, and an unusual amount (a financial log’s net amount more than 3× or under a third of the median of the property’s logs of the same category dated in the last 365 days, judged when there are at least 3). Keyset pagination: pass `next_cursor` back as `cursor`.',
    tags: ['review-queue'],
    security: admin,
    query: ReviewQueueQuery,
    responses: { 200: { description: 'The queue', schema: ReviewQueueResponse } },
    problems: { 400: ['validation-failed'], ...adminGate },
  },
  approveProposal: {
    method: 'post',
    path: `${ADMIN_BASE}/proposals/:id/approve`,
    summary: 'Approve a proposal: the record is created in the same transaction',
    description:
      'Needs `review:write`. `edits` change fields of the body first and are validated like the original (errors point at `#/edits/<field>`). A proposal that is no longer pending → 409 `proposal-not-pending` with `current_status`; of two racing approvals exactly one creates the record.',
    tags: ['review-queue'],
    security: admin,
    params: AdminProposalParams,
    body: ApproveRequest,
    responses: { 200: { description: 'Approved', schema: ApproveResponse } },
    problems: {
      400: ['validation-failed', 'malformed-json'],
      ...adminGate,
      ...jsonBody,
      404: ['proposal-not-found', 'review-queue-not-enabled'],
      409: ['proposal-not-pending'],
      422: ['unknown-property'],
    },
  },
  rejectProposal: {
    method: 'post',
    path: `${ADMIN_BASE}/proposals/:id/reject`,
    summary: 'Reject a proposal with a reason',
    description: 'Needs `review:write`. No record is created.',
    tags: ['review-queue'],
    security: admin,
    params: AdminProposalParams,
    body: RejectRequest,
    responses: { 200: { description: 'Rejected', schema: RejectResponse } },
    problems: {
      400: ['validation-failed', 'malformed-json'],
      ...adminGate,
      ...jsonBody,
      404: ['proposal-not-found', 'review-queue-not-enabled'],
      409: ['proposal-not-pending'],
    },
  },
  getProposalAudit: {
    method: 'get',
    path: `${ADMIN_BASE}/proposals/:id/audit`,
    summary: 'A proposal’s audit trail, oldest first',
    description:
      'Needs `review:read`. Every change of state leaves an entry: who, when, from and to, and the note.',
    tags: ['review-queue'],
    security: admin,
    params: AdminProposalParams,
    responses: { 200: { description: 'Audit entries', schema: AuditResponse } },
    problems: {
      400: ['validation-failed'],
      ...adminGate,
      404: ['proposal-not-found', 'review-queue-not-enabled'],
    },
  },
  reviewQueuePage: {
    method: 'get',
    path: REVIEW_QUEUE_PAGE,
    summary: 'The review queue page (HTML)',
    // a static file, like the page's scripts (served quietly too)
    logQuietly: true,
    description:
      'Served to anyone: the page asks for an admin key, keeps it in the tab’s sessionStorage, and calls the admin API with it. Its scripts and styles are static files under the same path.',
    tags: ['review-queue'],
    // a link may carry tracking or other parameters the page does not read; they are ignored, not refused
    query: z.looseObject({}),
    responses: { 200: { description: 'The page', contentType: 'text/html', schema: text() } },
  },
  ...remoteAccessRoutes,
  ...mcpRoutes(BRIDGE_BASE),
  ...operationsRoutes('The database is reachable'),
});

export type BridgeRoutes = typeof bridgeRoutes;
