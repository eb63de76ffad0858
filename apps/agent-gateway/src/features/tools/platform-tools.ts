import {
  DealsArgs,
  EMAIL_ACTIVITY_HOURS,
  EmailActivityArgs,
  PortfolioArgs,
  PortfolioComplianceArgs,
  PositiveIdValue,
  TenantCopiesArgs,
} from '@pa/contracts';
import { z } from 'zod';
import { type BridgeError, isBridgeError } from '../../clients/bridge/bridge-errors.ts';
import type { PlatformBridgeClient } from '../../clients/bridge/platform-bridge-client.ts';
import { type OwnEmailReader, workerEmailActivity } from '../email/worker-email-activity.ts';
import type { ToolCallRecord, ToolDefinition, Toolbox } from './toolbox.ts';
import { PROPOSAL_READ_SPECS, PROPOSAL_TOOL_NAMES, PROPOSAL_WRITE_SPECS } from './proposal-tools.ts';
import { type AnySpec, spec } from './tool-spec.ts';
import {
  KNOWLEDGE_SPEC,
  KNOWLEDGE_TOOL_NAME,
  type KnowledgeSearch,
  ToolArgumentProblem,
} from './knowledge-tool.ts';

// The worker's read tools over the platform bridge (docs/gateway-api.md). Every tool validates its arguments before it
// calls the bridge, returns compact JSON text capped in size (long lists are trimmed with a note so that an LLM
// context is not flooded), and never throws: a bad argument or a bridge failure comes back as `ok: false` with
// a message in words. The API key lives inside the client and never appears in a result.
//
// With PLATFORM_BRIDGE_WRITES the toolbox also carries the three proposal tools (proposal-tools.ts). Reading the
// tenant's proposals (platform-get-proposals) is a read like the others, needing only bridge:read, so it comes
// with every bound worker: whether or not it may propose now, it can say what became of earlier proposals.

export const PLATFORM_TOOL_NAMES = {
  portfolio: 'platform-get-portfolio',
  property: 'platform-get-property',
  compliance: 'platform-get-compliance',
  tenantCopies: 'platform-get-tenant-copies',
  deals: 'platform-get-deals',
  emailActivity: 'platform-get-email-activity',
  knowledge: KNOWLEDGE_TOOL_NAME,
  ...PROPOSAL_TOOL_NAMES,
} as const;
export type PlatformToolName = (typeof PLATFORM_TOOL_NAMES)[keyof typeof PLATFORM_TOOL_NAMES];

/** Results longer than this (characters of JSON text) are trimmed. */
export const DEFAULT_MAX_RESULT_CHARS = 20_000;

// The list tools take the bridge's own query parameters, with the bounds and defaults of its route table.
export { DealsArgs, EmailActivityArgs, PortfolioArgs, TenantCopiesArgs };
const PropertyId = PositiveIdValue.describe('the numeric property id (the `id` field, not `ref`)');
export const PropertyArgs = z.strictObject({ property_id: PropertyId });
// One tool for both compliance reads rather than a sixth tool: with property_id it reads that property, without it
// the whole portfolio's items needing attention in one bridge call (a briefing no longer needs a call per
// property). The page arguments belong to the portfolio-wide read only, so a mixture is refused in words.
export const ComplianceArgs = z
  .strictObject({
    property_id: PropertyId.optional().describe(
      'the numeric property id (the `id` field, not `ref`); leave it out to read the whole portfolio',
    ),
    ...PortfolioComplianceArgs.shape,
  })
  .superRefine((args, ctx) => {
    if (args.property_id === undefined) return;
    for (const key of ['status', 'limit', 'cursor'] as const) {
      if (args[key] !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: 'applies only to the whole portfolio: leave out property_id, or leave this out',
        });
    }
  });

const READ_SPECS = [
  spec({
    name: PLATFORM_TOOL_NAMES.portfolio,
    description:
      'Read the bound tenant’s portfolio: a summary (properties, units, occupancy, monthly rent roll and arrears ' +
      'in pence, compliance item counts by status, open deals, pipeline value) and one page of properties (id, ' +
      'ref, address, type, letting status, HMO flag, worst compliance status, rent). Follow next_cursor for more.',
    schema: PortfolioArgs,
    run: (client, args, { signal }) => client.getPortfolio(args, { signal }),
  }),
  spec({
    name: PLATFORM_TOOL_NAMES.property,
    description:
      'Read one property by its numeric id: address, type, tenure, HMO licence, gas, EPC, letting and management, ' +
      'units, the current tenancy (rent, dates, deposit), arrears in pence and a compliance summary.',
    schema: PropertyArgs,
    run: (client, args, { signal }) => client.getProperty(args.property_id, { signal }),
  }),
  spec({
    name: PLATFORM_TOOL_NAMES.compliance,
    description:
      'Read compliance items (gas safety, EICR, EPC, smoke/CO alarms, HMO licence, legionella, fire risk, deposit ' +
      'protection, right to rent, PAT): dates, outcome, EICR codes, remedial due date, status (valid, ' +
      'expiring_soon, expired), days until due, and the required types missing. With property_id: every item ' +
      'of that one property. Without it: across the whole portfolio in one call, only what needs attention, ' +
      'grouped by property with its ref; `status` narrows it to expired, expiring_soon and/or missing (default ' +
      'all three), one page of properties at a time (follow next_cursor).',
    schema: ComplianceArgs,
    run: (client, { property_id, ...page }, { signal }) =>
      property_id === undefined
        ? client.getPortfolioCompliance(page, { signal })
        : client.getCompliance(property_id, { signal }),
  }),
  spec({
    name: PLATFORM_TOOL_NAMES.tenantCopies,
    description:
      'Read the gas safety records and EICRs whose copy the tenant has not been given, across the whole ' +
      'portfolio in one call: each with its property id and ref and the item (dates, tenant_copy_due_date, ' +
      'tenant_copy_status, served_to_tenant_at). A copy is owed within 28 days of the check, or by move-in when ' +
      'the check came first; a valid certificate can still owe one, so platform-get-compliance does not list ' +
      'these. `status`: overdue (default) and/or due; one page of items at a time (follow next_cursor).',
    schema: TenantCopiesArgs,
    run: (client, args, { signal }) => client.getTenantCopies(args, { signal }),
  }),
  spec({
    name: PLATFORM_TOOL_NAMES.deals,
    description:
      'Read deals (acquisitions, disposals, lettings, management instructions, refinances) with stage, value in ' +
      'pence, counterparty, expected close date and the next action with its due date. Default: open deals.',
    schema: DealsArgs,
    run: (client, args, { signal }) => client.getDeals(args, { signal }),
  }),
  spec({
    name: PLATFORM_TOOL_NAMES.emailActivity,
    description:
      'Read recent email activity (newest first): direction, sender, subject, snippet, category, whether it ' +
      'requires a response, linked property or deal, and its source: `platform` for the tenant’s mailboxes the ' +
      'platform reads, `assistant` for mailboxes this assistant reads itself (listed in own_mailboxes). ' +
      'Default: the last 24 hours.',
    schema: EmailActivityArgs,
    run: (client, args, { signal, ownEmail }) =>
      workerEmailActivity(
        () => client.getEmailActivity(args, { signal }),
        ownEmail,
        args.hours ?? EMAIL_ACTIVITY_HOURS.default,
        describeFailure,
      ),
  }),
  ...PROPOSAL_READ_SPECS,
];

function definitionOf(s: AnySpec): ToolDefinition {
  return { name: s.name, description: s.description, parameters: toParameters(s.schema) };
}

/** The read tools every bound worker has. */
export const PLATFORM_TOOL_DEFINITIONS: ToolDefinition[] = READ_SPECS.map(definitionOf);
/** The proposal tools a worker has besides with PLATFORM_BRIDGE_WRITES. */
export const PROPOSAL_TOOL_DEFINITIONS: ToolDefinition[] = PROPOSAL_WRITE_SPECS.map(definitionOf);
/** The knowledge search a worker has besides when its corpus is synced (features/knowledge). */
export const KNOWLEDGE_TOOL_DEFINITION: ToolDefinition = definitionOf(KNOWLEDGE_SPEC);

function toParameters(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

export interface PlatformToolboxOptions {
  /** Results longer than this many characters are trimmed (default 20 000). */
  maxResultChars?: number;
  /** Adds the proposal tools (PLATFORM_BRIDGE_WRITES). Default false. */
  writes?: boolean;
  /** The review queue page, named in proposal results so that the user can be sent there. */
  reviewQueueUrl?: string | null;
  /** The worker's own mailboxes (EMAIL_INGESTION_ENABLED), merged into the email tool's answer. */
  ownEmail?: OwnEmailReader | undefined;
  /** The worker's synced knowledge corpus: adds platform-search-knowledge. */
  knowledge?: KnowledgeSearch | undefined;
}

/** The read tools for one tenant's bridge client, and the proposal tools when `writes` is on. */
export function createPlatformToolbox(
  client: PlatformBridgeClient,
  options: PlatformToolboxOptions = {},
): Toolbox {
  const maxChars = Math.max(1_000, options.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS);
  const knowledge = options.knowledge;
  const specs: AnySpec[] = [
    ...READ_SPECS,
    ...(knowledge ? [KNOWLEDGE_SPEC] : []),
    ...(options.writes ? PROPOSAL_WRITE_SPECS : []),
  ];
  const byName = new Map<string, AnySpec>(specs.map((s) => [s.name, s]));
  const reviewQueueUrl = options.reviewQueueUrl ?? null;
  const definitions = [
    ...PLATFORM_TOOL_DEFINITIONS,
    ...(knowledge ? [KNOWLEDGE_TOOL_DEFINITION] : []),
    ...(options.writes ? PROPOSAL_TOOL_DEFINITIONS : []),
  ];

  return {
    definitions: definitions.map((d) => ({ ...d })),
    async call(name, args, signal): Promise<ToolCallRecord> {
      const fail = (result: string): ToolCallRecord => ({ name, arguments: args ?? null, ok: false, result });
      const tool = byName.get(name);
      if (!tool) return fail(`No tool named ${name}.`);
      if (signal.aborted) return fail(`${name} was cancelled.`);

      const parsed = tool.schema.safeParse(args ?? {});
      if (!parsed.success) return fail(`Invalid arguments for ${name}: ${describeIssues(parsed.error)}`);
      try {
        const value = await tool.run(client, parsed.data, {
          signal,
          reviewQueueUrl,
          ownEmail: options.ownEmail,
          knowledge,
        });
        return { name, arguments: parsed.data, ok: true, result: compactJson(value, maxChars) };
      } catch (err) {
        return { name, arguments: parsed.data, ok: false, result: `${name} failed: ${describeFailure(err)}` };
      }
    },
  };
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      const path = issue.path.length > 0 ? issue.path.join('.') : 'arguments';
      return `${path}: ${issue.message}`;
    })
    .join('; ');
}

/** A failure in words, for the user and the model. Never includes the key (BridgeError never carries it). */
export function describeFailure(err: unknown): string {
  if (isBridgeError(err)) return describeBridgeError(err);
  if (err instanceof ToolArgumentProblem) return err.message;
  if (err instanceof Error && err.name === 'AbortError') return 'the request was cancelled.';
  return 'an unexpected error occurred while reading the platform.';
}

function describeBridgeError(err: BridgeError): string {
  const id = err.requestId ? ` (request id ${err.requestId})` : '';
  const proposing = err.method === 'POST';
  switch (err.kind) {
    case 'unauthorized':
      return `the platform refused the API key (401 unauthorized): it may have been revoked or mistyped. Bind the worker again with a valid key.${id}`;
    case 'forbidden':
      if (err.code === 'insufficient-scope' && proposing)
        return `the key this worker is bound with cannot propose: bind a key with the bridge:propose scope (403 insufficient-scope).${id}`;
      return `the platform key is not allowed to do this (403${err.code ? ` ${err.code}` : ''}).${id}`;
    case 'not-found':
      if (err.code === 'bridge-not-enabled')
        return `the platform's assistant bridge is not enabled for this tenant (404 bridge-not-enabled).${id}`;
      if (err.code === 'writes-not-enabled')
        return `proposals are switched off for this tenant on the platform: its assistant_bridge_writes flag must be turned on (404 writes-not-enabled).${id}`;
      if (err.code === 'property-not-found')
        return `no such property on the platform (404 property-not-found).${id}`;
      if (err.code === 'proposal-not-found')
        return `no such proposal on the platform (404 proposal-not-found).${id}`;
      return `the platform answered 404 not found${err.code ? ` (${err.code})` : ''}.${id}`;
    case 'conflict':
      if (err.code === 'idempotency-key-in-flight')
        return `the platform is still handling this same proposal; read the proposals before trying again (409 idempotency-key-in-flight).${id}`;
      return `the platform refused the change as it conflicts with the current state (409${err.code ? ` ${err.code}` : ''}).${id}`;
    case 'rate-limited':
      if (err.code === 'proposal-quota-exceeded')
        return `too many proposals are already waiting for review: a workspace admin must review the queue before more can be proposed (429 proposal-quota-exceeded).${id}`;
      return `the platform is rate limiting requests${err.retryAfterSeconds ? `; try again in ${err.retryAfterSeconds} s` : ''}.${id}`;
    case 'invalid-request':
      if (err.code === 'unknown-property')
        return `that property_id is not one of this tenant's properties (422 unknown-property): read the portfolio for the right numeric id.${id}`;
      return `the platform rejected the request${err.detail ? `: ${err.detail}` : ''}.${id}`;
    case 'contract':
      return `the platform's answer did not match the expected format.${id}`;
    case 'unavailable':
      return `the platform could not be reached (${err.reason ?? 'unavailable'}${err.status ? `, HTTP ${err.status}` : ''}).${id}`;
  }
}

// ---- compact results ----------------------------------------------------------------------------------------

type Json = Record<string, unknown>;

/**
 * JSON text of `value`, at most `maxChars` long. Too long: snippets are shortened first, then the longest
 * top-level list is cut from its end, and a `truncated` note says what was left out and how to get the rest.
 */
export function compactJson(value: unknown, maxChars: number = DEFAULT_MAX_RESULT_CHARS): string {
  const text = JSON.stringify(value);
  if (text.length <= maxChars) return text;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return hardCut(text, maxChars);

  const obj: Json = { ...(value as Json) };
  shortenSnippets(obj);
  const out = JSON.stringify(obj);
  if (out.length <= maxChars) return out;

  const lists = Object.entries(obj)
    .filter((e): e is [string, unknown[]] => Array.isArray(e[1]))
    .sort((a, b) => JSON.stringify(b[1]).length - JSON.stringify(a[1]).length);
  const [field, list] = lists[0] ?? [];
  if (field === undefined || list === undefined) return hardCut(out, maxChars);

  const total = list.length;
  let lo = 0;
  let hi = total;
  let best: string | undefined;
  // The most items that still fit, by bisection.
  while (lo <= hi) {
    const mid = Math.floor((lo + hi) / 2);
    const candidate = JSON.stringify({
      ...obj,
      [field]: list.slice(0, mid),
      truncated: {
        field,
        shown: mid,
        total,
        note: `Only the first ${mid} of ${total} ${field} are shown to keep the answer short; ask for fewer (limit/cursor, fewer hours) to see the rest.`,
      },
    });
    if (candidate.length <= maxChars) {
      best = candidate;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best ?? hardCut(out, maxChars);
}

function shortenSnippets(obj: Json): void {
  for (const [key, v] of Object.entries(obj)) {
    if (!Array.isArray(v)) continue;
    obj[key] = v.map((item: unknown) => {
      if (item && typeof item === 'object' && typeof (item as Json).snippet === 'string') {
        const s = (item as Json).snippet as string;
        return s.length > 80 ? { ...(item as Json), snippet: `${s.slice(0, 79)}…` } : item;
      }
      return item;
    });
  }
}

function hardCut(text: string, maxChars: number): string {
  const note = '… [truncated: result too long]';
  return text.slice(0, Math.max(0, maxChars - note.length)) + note;
}
