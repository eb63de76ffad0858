import type {
  ComplianceResponse,
  Deal,
  DealsResponse,
  PortfolioProperty,
  PortfolioResponse,
  Property,
  WorkerEmailActivityResponse,
} from '@pa/contracts';
import { PLATFORM_TOOL_NAMES } from '../../tools/platform-tools.ts';
import type { ToolCallRecord, Toolbox } from '../provider.ts';
import { londonDay } from './format.ts';

// Reads the platform ONLY through the turn's toolbox (so every call is recorded with the turn), caching per
// turn: one reader lives for one answer. A failed tool throws a ToolFailure, which becomes a reply in words.

/** True when the worker is bound: its toolbox carries the platform read tools. */
export function hasPlatformTools(tools: Toolbox): boolean {
  return tools.definitions.some((d) => d.name === PLATFORM_TOOL_NAMES.portfolio);
}

/** Pages of the portfolio walked at most (× PAGE_SIZE properties). */
const MAX_PORTFOLIO_PAGES = 20;
const PAGE_SIZE = 100;
const COMPLIANCE_CONCURRENCY = 4;

export class ToolFailure extends Error {
  constructor(readonly record: ToolCallRecord) {
    super(record.result);
  }
}

export interface PortfolioView {
  tenant: PortfolioResponse['tenant'];
  asOf: string;
  today: string;
  summary: PortfolioResponse['summary'];
  properties: PortfolioProperty[];
  /** set when the walk could not read every property */
  incomplete: string | null;
}

export class PlatformReader {
  private portfolioView: Promise<PortfolioView> | undefined;
  private readonly compliance = new Map<number, Promise<ComplianceResponse>>();

  constructor(
    private readonly tools: Toolbox,
    private readonly signal: AbortSignal,
  ) {}

  private async call<T>(name: string, args: Record<string, unknown>): Promise<T & { truncated?: unknown }> {
    const record = await this.tools.call(name, args, this.signal);
    this.signal.throwIfAborted();
    if (!record.ok) throw new ToolFailure(record);
    try {
      return JSON.parse(record.result) as T & { truncated?: unknown };
    } catch {
      throw new ToolFailure({
        ...record,
        ok: false,
        result: `${name} returned an answer that could not be read.`,
      });
    }
  }

  portfolio(): Promise<PortfolioView> {
    this.portfolioView ??= this.walkPortfolio();
    return this.portfolioView;
  }

  private async walkPortfolio(): Promise<PortfolioView> {
    const properties: PortfolioProperty[] = [];
    let cursor: string | null = null;
    let first: PortfolioResponse | undefined;
    let incomplete: string | null = null;
    for (let page = 0; page < MAX_PORTFOLIO_PAGES; page++) {
      const args: Record<string, unknown> = { limit: PAGE_SIZE };
      if (cursor) args.cursor = cursor;
      const res = await this.call<PortfolioResponse>(PLATFORM_TOOL_NAMES.portfolio, args);
      first ??= res;
      properties.push(...res.properties);
      if (res.truncated) {
        incomplete = 'the platform’s answer was trimmed, so some properties may be missing below';
        break;
      }
      cursor = res.next_cursor;
      if (!cursor) break;
      if (page === MAX_PORTFOLIO_PAGES - 1)
        incomplete = `only the first ${properties.length} properties were read`;
    }
    const base = first!;
    return {
      tenant: base.tenant,
      asOf: base.as_of,
      today: londonDay(base.as_of),
      summary: base.summary,
      properties,
      incomplete,
    };
  }

  property(id: number): Promise<Property> {
    return this.call<Property>(PLATFORM_TOOL_NAMES.property, { property_id: id });
  }

  complianceOf(id: number): Promise<ComplianceResponse> {
    let pending = this.compliance.get(id);
    if (!pending) {
      pending = this.call<ComplianceResponse>(PLATFORM_TOOL_NAMES.compliance, { property_id: id });
      this.compliance.set(id, pending);
    }
    return pending;
  }

  /** Compliance of many properties, a few at a time, in the given order. */
  async complianceMany(ids: number[]): Promise<ComplianceResponse[]> {
    const out: ComplianceResponse[] = new Array<ComplianceResponse>(ids.length);
    let next = 0;
    const worker = async () => {
      while (next < ids.length) {
        const i = next++;
        out[i] = await this.complianceOf(ids[i]!);
      }
    };
    await Promise.all(Array.from({ length: Math.min(COMPLIANCE_CONCURRENCY, ids.length) }, worker));
    return out;
  }

  async deals(status: string): Promise<{ deals: Deal[]; incomplete: boolean }> {
    const deals: Deal[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 5; page++) {
      const args: Record<string, unknown> = { status, limit: 50 };
      if (cursor) args.cursor = cursor;
      const res = await this.call<DealsResponse>(PLATFORM_TOOL_NAMES.deals, args);
      deals.push(...res.deals);
      if (res.truncated) return { deals, incomplete: true };
      cursor = res.next_cursor;
      if (!cursor) return { deals, incomplete: false };
    }
    return { deals, incomplete: true };
  }

  /** The worker's email: the platform's and its own mailboxes', labelled by source. */
  emails(hours: number): Promise<WorkerEmailActivityResponse & { truncated?: unknown }> {
    return this.call<WorkerEmailActivityResponse>(PLATFORM_TOOL_NAMES.emailActivity, { hours });
  }
}
/** Compliance reads per answer at most; more properties than this are left out with a note. */
export const MAX_COMPLIANCE_CALLS = 100;

export interface ComplianceRead {
  records: { property: PortfolioProperty; compliance: ComplianceResponse }[];
  /** properties that needed reading but were left out to keep the answer quick */
  skipped: number;
}

/**
 * The compliance of the given properties. `all`: every one (a window longer than the platform's "expiring
 * soon" can reach a valid certificate); `not-valid`: only those whose status is not valid, which are the only
 * ones holding anything expired, missing or expiring soon.
 */
export async function readCompliance(
  reader: PlatformReader,
  properties: PortfolioProperty[],
  which: 'all' | 'not-valid',
): Promise<ComplianceRead> {
  const wanted = which === 'all' ? properties : properties.filter((p) => p.compliance_status !== 'valid');
  const read = wanted.slice(0, MAX_COMPLIANCE_CALLS);
  const results = await reader.complianceMany(read.map((p) => p.id));
  return {
    records: read.map((property, i) => ({ property, compliance: results[i]! })),
    skipped: wanted.length - read.length,
  };
}
