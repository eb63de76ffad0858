import type {
  ComplianceResponse,
  Deal,
  DealsResponse,
  PortfolioComplianceResponse,
  PortfolioProperty,
  PortfolioResponse,
  Property,
  WorkerEmailActivityResponse,
} from '@pa/contracts';
import { attentionAsCompliance } from '../../briefing/compliance-facts.ts';
import { PLATFORM_TOOL_NAMES } from '../../tools/platform-tools.ts';
import type { ToolCallRecord, Toolbox } from '../../tools/toolbox.ts';
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
// The portfolio-wide compliance read, a page at a time: ten properties' items fit the tool's result cap (20,000
// characters) with room to spare; a page trimmed anyway ends the walk, and what it left out is read per property.
const ATTENTION_PAGE_SIZE = 10;

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

  /** One tool's answer, parsed; a failed tool throws a ToolFailure. */
  async call<T>(name: string, args: Record<string, unknown>): Promise<T & { truncated?: unknown }> {
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

  /**
   * The compliance needing attention of the properties `ids`, from the portfolio-wide read (the compliance tool
   * without property_id), by property id. Each property's items are those not valid, which is all a question
   * about what is expired, missing or expiring soon needs. The pages are walked until every one of `ids` is found;
   * a property they did not give is not in the map.
   */
  async attention(ids: ReadonlySet<number>): Promise<Map<number, ComplianceResponse>> {
    const found = new Map<number, ComplianceResponse>();
    let cursor: string | null = null;
    do {
      const args: Record<string, unknown> = { limit: ATTENTION_PAGE_SIZE };
      if (cursor) args.cursor = cursor;
      const page = await this.call<PortfolioComplianceResponse>(PLATFORM_TOOL_NAMES.compliance, args);
      for (const p of page.properties)
        if (ids.has(p.property_id)) found.set(p.property_id, attentionAsCompliance(p, page.as_of));
      // a trimmed page's cursor points past the properties it left out
      if (page.truncated) break;
      cursor = page.next_cursor;
    } while (cursor && found.size < ids.size);
    return found;
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

/** Properties whose compliance one answer reads at most; more than this are left out with a note. */
const MAX_COMPLIANCE_PROPERTIES = 100;

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
  const read = wanted.slice(0, MAX_COMPLIANCE_PROPERTIES);
  // Only what is not valid is wanted: when the portfolio-wide read reaches them in fewer calls (ten properties
  // needing attention a page) than one call each, it is used (the demo's 23 in 3 calls); the few it did not give
  // are read one by one.
  const paged =
    which === 'not-valid' && read.length > 0 && (await pagesToReach(reader, read)) < read.length
      ? await reader.attention(new Set(read.map((p) => p.id)))
      : new Map<number, ComplianceResponse>();
  const rest = read.filter((p) => !paged.has(p.id));
  const results = new Map(
    (await reader.complianceMany(rest.map((p) => p.id))).map((c, i) => [rest[i]!.id, c]),
  );
  return {
    records: read.map((property) => ({
      property,
      compliance: paged.get(property.id) ?? results.get(property.id)!,
    })),
    skipped: wanted.length - read.length,
  };
}

/**
 * Pages of the portfolio-wide compliance read needed to reach the last of `read`: the portfolio's properties
 * needing attention up to it, ten a page (the read lists them by id, as the portfolio does).
 */
async function pagesToReach(reader: PlatformReader, read: PortfolioProperty[]): Promise<number> {
  const last = Math.max(...read.map((p) => p.id));
  // the answer has read the portfolio already: this is its cached view
  const { properties } = await reader.portfolio();
  const before = properties.filter((p) => p.compliance_status !== 'valid' && p.id <= last);
  return Math.ceil(Math.max(before.length, read.length) / ATTENTION_PAGE_SIZE);
}
