import {
  DealsResponse,
  PortfolioComplianceResponse,
  PortfolioResponse,
  WorkerEmailActivityResponse,
} from '@pa/contracts';
import type { z } from 'zod';
import { isBridgeError, type PlatformBridgeClient } from '../../clients/platform-bridge-client.ts';
import { attentionAsCompliance } from '../briefing/compliance-facts.ts';
import type { BriefingInput } from '../briefing/index.ts';
import type { OwnEmailReader } from '../email/worker-email-activity.ts';
import type { Toolbox } from '../providers/provider.ts';
import { createPlatformToolbox, PLATFORM_TOOL_NAMES } from '../tools/platform-tools.ts';

// What a briefing is written from, read through the worker's own tools (the toolbox the chat uses, over the
// worker's bound key), so the summary sees exactly what the worker may see. Pages are followed to the end: a
// briefing that silently left properties out would state wrong facts.

/** The briefing module's input, read from the bridge; `today` is the platform's own London date. */
export type BriefingData = BriefingInput;

/** A run that cannot go on; `permanent` when retrying cannot help (a refused key, a channel not paired). */
export class SummaryFailure extends Error {
  override readonly name = 'SummaryFailure';
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
  }
}

const PAGE = 500;
const MAX_PAGES = 40;
// The summary wants whole answers: nothing is trimmed for an LLM's context here (the client caps bodies at 2 MiB).
const WHOLE = 8 * 1024 * 1024;

/** The worker's toolbox over its bound client, counting the bridge calls and keeping the last failure. */
export function observedToolbox(client: PlatformBridgeClient, ownEmail?: OwnEmailReader) {
  let calls = 0;
  let lastError: unknown = null;
  const observed = new Proxy(client, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        calls += 1;
        try {
          return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        } catch (err) {
          lastError = err;
          throw err;
        }
      };
    },
  });
  return {
    tools: createPlatformToolbox(observed, { maxResultChars: WHOLE, ownEmail }),
    calls: () => calls,
    /** retrying cannot help when the platform refused the key or does not serve the bridge to this tenant */
    permanent: () =>
      isBridgeError(lastError) &&
      (lastError.kind === 'unauthorized' ||
        lastError.kind === 'forbidden' ||
        (lastError.kind === 'not-found' && lastError.code === 'bridge-not-enabled')),
  };
}

export async function readBriefingData(
  toolbox: Pick<Toolbox, 'call'> & { permanent?: () => boolean },
  signal: AbortSignal,
): Promise<BriefingData> {
  const call = async <S extends z.ZodType>(name: string, args: object, schema: S): Promise<z.output<S>> => {
    const record = await toolbox.call(name, args, signal);
    if (!record.ok) throw new SummaryFailure(record.result, toolbox.permanent?.() ?? false);
    return schema.parse(JSON.parse(record.result));
  };

  /** Every page of a list, in order; a list longer than MAX_PAGES pages is refused rather than cut. */
  async function allPages<S extends z.ZodType<{ next_cursor: string | null }>>(
    name: string,
    args: Record<string, unknown>,
    schema: S,
  ): Promise<z.output<S>[]> {
    const pages: z.output<S>[] = [];
    let cursor: string | null = null;
    do {
      if (pages.length === MAX_PAGES)
        throw new SummaryFailure(
          `${name}: more than ${MAX_PAGES * PAGE} records, too many for one briefing.`,
          true,
        );
      const page: z.output<S> = await call(name, cursor ? { ...args, cursor } : args, schema);
      pages.push(page);
      cursor = page.next_cursor;
    } while (cursor);
    return pages;
  }

  const portfolio = await allPages(PLATFORM_TOOL_NAMES.portfolio, { limit: PAGE }, PortfolioResponse);
  const deals = await allPages(PLATFORM_TOOL_NAMES.deals, { status: 'open', limit: PAGE }, DealsResponse);
  // the platform's mail and the worker's own mailboxes', labelled by source
  const emails = await call(PLATFORM_TOOL_NAMES.emailActivity, { hours: 24 }, WorkerEmailActivityResponse);
  // without property_id the tool reads the whole portfolio's compliance needing attention, a page per call
  const attention = await allPages(
    PLATFORM_TOOL_NAMES.compliance,
    { limit: PAGE },
    PortfolioComplianceResponse,
  );

  const first = portfolio[0]!;
  const properties = portfolio.flatMap((page) => page.properties);
  const byId = new Map(properties.map((p) => [p.id, p]));
  const compliance: BriefingData['compliance'] = [];
  for (const page of attention) {
    for (const p of page.properties) {
      const property = byId.get(p.property_id);
      // a property added between the two reads is left for tomorrow's briefing rather than half-described
      if (!property) continue;
      compliance.push({ property, compliance: attentionAsCompliance(p, page.as_of) });
    }
  }

  return {
    tenantName: first.tenant.name,
    today: londonDate(new Date(first.as_of)),
    summary: first.summary,
    properties,
    compliance,
    deals: deals.flatMap((page) => page.deals),
    emails: emails.items,
  };
}

export function londonDate(at: Date): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/London' }).format(at);
}
