import { isBridgeError } from '../../clients/bridge/bridge-errors.ts';
import type { PlatformBridgeClient } from '../../clients/bridge/platform-bridge-client.ts';
import {
  type BriefingList,
  type BriefingPaging,
  type BriefingReads,
  BriefingTooLong,
  fetchBriefingData,
} from '../briefing/briefing-data.ts';
import type { BriefingInput } from '../briefing/index.ts';
import { type OwnEmailReader, workerEmailActivity } from '../email/worker-email-activity.ts';
import { describeFailure, PLATFORM_TOOL_NAMES } from '../tools/platform-tools.ts';

// What a summary's briefing is written from: the briefing's own reads (features/briefing, the same the chat's
// "daily briefing" makes) over the worker's typed client and bound key, so the summary sees exactly what the
// worker may see. Every list is read whole: a briefing that silently left properties out would state wrong facts.

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
const WHOLE_LISTS: BriefingPaging = {
  portfolio: { limit: PAGE, maxPages: MAX_PAGES },
  compliance: { limit: PAGE, maxPages: MAX_PAGES },
  deals: { limit: PAGE, maxPages: MAX_PAGES },
};

// A failure names the read as the worker's tool of the same read is named, so that a run's error and a chat's
// answer about the same failure read alike.
const READ_NAMES: Record<BriefingList | 'emails' | 'property', string> = {
  portfolio: PLATFORM_TOOL_NAMES.portfolio,
  compliance: PLATFORM_TOOL_NAMES.compliance,
  copies: PLATFORM_TOOL_NAMES.tenantCopies,
  property: PLATFORM_TOOL_NAMES.compliance,
  deals: PLATFORM_TOOL_NAMES.deals,
  emails: PLATFORM_TOOL_NAMES.emailActivity,
};

/** The worker's bridge client over its bound key, and its own mailboxes' reader when it reads any. */
export interface SummaryBridge {
  client: PlatformBridgeClient;
  ownEmail?: OwnEmailReader | undefined;
}

/** The briefing's data, and how many bridge calls reading it took. */
export async function readBriefingData(
  bridge: SummaryBridge,
  signal: AbortSignal,
): Promise<{ data: BriefingData; bridgeCalls: number }> {
  const counted = summaryReads(bridge, signal);
  try {
    const data = await fetchBriefingData(counted.reads, {
      paging: WHOLE_LISTS,
      whole: true,
      tenantCopies: true,
    });
    return { data, bridgeCalls: counted.calls() };
  } catch (err) {
    if (err instanceof BriefingTooLong)
      throw new SummaryFailure(`${READ_NAMES[err.list]}: ${err.message}`, true);
    throw err;
  }
}

/** The briefing's reads over the typed client, counted; a failed read is a SummaryFailure in words. */
function summaryReads({ client, ownEmail }: SummaryBridge, signal: AbortSignal) {
  let calls = 0;
  const call = { signal };
  async function read<T>(what: keyof typeof READ_NAMES, run: () => Promise<T>): Promise<T> {
    const name = READ_NAMES[what];
    if (signal.aborted) throw new SummaryFailure(`${name} was cancelled.`, false);
    try {
      return await run();
    } catch (err) {
      throw new SummaryFailure(`${name} failed: ${describeFailure(err)}`, permanent(err));
    }
  }
  const count = <T>(run: () => Promise<T>): Promise<T> => {
    calls += 1;
    return run();
  };

  const reads: BriefingReads = {
    getPortfolio: (query) => read('portfolio', () => count(() => client.getPortfolio(query, call))),
    getPortfolioCompliance: (query) =>
      read('compliance', () => count(() => client.getPortfolioCompliance(query, call))),
    getCompliance: (id) => read('property', () => count(() => client.getCompliance(id, call))),
    getTenantCopies: (query) => read('copies', () => count(() => client.getTenantCopies(query, call))),
    getDeals: (query) => read('deals', () => count(() => client.getDeals(query, call))),
    // the platform's mail and the worker's own mailboxes', labelled by source
    getWorkerEmailActivity: ({ hours }) =>
      read('emails', () =>
        workerEmailActivity(
          () => count(() => client.getEmailActivity({ hours }, call)),
          ownEmail,
          hours,
          describeFailure,
        ),
      ),
  };
  return { reads, calls: () => calls };
}

/** Retrying cannot help when the platform refused the key or does not serve the bridge to this tenant. */
function permanent(err: unknown): boolean {
  return (
    isBridgeError(err) &&
    (err.kind === 'unauthorized' ||
      err.kind === 'forbidden' ||
      (err.kind === 'not-found' && err.code === 'bridge-not-enabled'))
  );
}
