import { McpError, type GetPromptResult, type Prompt } from '@modelcontextprotocol/sdk/types.js';
import type { McpPropertyLookup } from './mcp-property-lookup.ts';
import type { McpCaller } from './mcp-tool-calls.ts';

// Two prompts a property manager picks from a client's menu. Each returns one user message that tells the assistant
// which tools to call and what to make of their answers; the tools then do the reading (and, with a key that may
// propose, the proposing, which still waits for a person's approval in the review queue).

const INVALID_PARAMS = -32602;

const PROMPTS: Prompt[] = [
  {
    name: 'weekly_compliance_review',
    title: 'Weekly compliance review',
    description:
      "Go through the portfolio's compliance: what has expired, what expires soon, what is missing, and which tenants are still owed a certificate copy, ordered by urgency.",
  },
  {
    name: 'owner_monthly_update',
    title: "Draft the owner's monthly update for a property",
    description:
      "A short email to a property's owner about the month: tenancy and rent, arrears, compliance, open deals and the month's correspondence.",
    arguments: [
      { name: 'property', description: "the property's id or reference (e.g. MAN-003)", required: true },
    ],
  },
];

const message = (text: string): GetPromptResult['messages'][number] => ({
  role: 'user',
  content: { type: 'text', text },
});

function weeklyReview(caller: McpCaller): GetPromptResult {
  const proposing = caller.scopes.has('bridge:propose') && caller.writes;
  return {
    description: PROMPTS[0]!.description,
    messages: [
      message(
        [
          `Run this week's compliance review for ${caller.tenant.name}.`,
          '',
          '1. Call `list_portfolio_compliance` (all three statuses) and follow `next_cursor` until it is null.',
          '2. Call `list_tenant_copies` with status `due` and `overdue`: certificates whose copy the tenant is still owed.',
          '3. For any property with an expired or missing gas safety record, EICR or EPC, call `get_property_compliance` for the detail (remedial work, exemptions).',
          '4. Answer with a list ordered by urgency: expired first, then missing, then expiring soon (soonest first), then copies overdue. One line each: the property reference, what, and the date.',
          proposing
            ? '5. If I tell you a certificate has been renewed and give the new dates, propose it with `propose_compliance_update`: nothing changes until a person approves it in the review queue.'
            : '5. Do not change anything: this is a read-only review.',
        ].join('\n'),
      ),
    ],
  };
}

export function createMcpPrompts(deps: { properties: McpPropertyLookup }) {
  async function ownerUpdate(
    caller: McpCaller,
    args: Record<string, string> | undefined,
  ): Promise<GetPromptResult> {
    const named = args?.property?.trim();
    if (!named)
      throw new McpError(INVALID_PARAMS, 'The prompt needs `property`: the property’s id or reference.');
    const p = await deps.properties.find(caller.tenant.id, named);
    if (!p) throw new McpError(INVALID_PARAMS, `There is no property ${named}.`);
    const where = `${p.ref} (${p.line1}, ${p.town} ${p.postcode}; property id ${p.id})`;
    return {
      description: `The owner's monthly update for ${p.ref}`,
      messages: [
        message(
          [
            `Draft this month's update to the owner of ${where}.`,
            '',
            `1. Call \`get_property\` with id ${p.id}: the tenancy, rent, arrears now and 30 days ago, the EPC.`,
            `2. Call \`get_property_compliance\` with id ${p.id}: anything expired, expiring soon or missing.`,
            `3. Call \`list_deals\` with status \`open\` and keep those with property_id ${p.id}.`,
            `4. Call \`list_email_activity\` with hours 720 and keep the messages about ${p.ref} or its address.`,
            `5. Call \`search_knowledge\` with property ${p.id} and q "landlord instructions" for what the owner has asked of us.`,
            '',
            'Write a short, friendly email (under 250 words) in British English: how the tenancy stands, the rent and any arrears (and whether they grew), compliance that needs the owner’s decision or money, and anything else that happened. Quote amounts in pounds. Do not invent anything the tools did not give you; say what you could not find.',
          ].join('\n'),
        ),
      ],
    };
  }

  return {
    list: (caller: McpCaller): Prompt[] => (caller.scopes.has('bridge:read') ? PROMPTS : []),

    async get(caller: McpCaller, name: string, args: Record<string, string> | undefined) {
      if (!caller.scopes.has('bridge:read') || !PROMPTS.some((p) => p.name === name)) {
        throw new McpError(INVALID_PARAMS, `Unknown prompt: ${name}`);
      }
      return name === 'weekly_compliance_review' ? weeklyReview(caller) : ownerUpdate(caller, args);
    },
  };
}
export type McpPrompts = ReturnType<typeof createMcpPrompts>;
