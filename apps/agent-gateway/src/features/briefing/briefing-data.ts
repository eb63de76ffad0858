import type {
  ComplianceResponse,
  DealsResponse,
  PortfolioComplianceResponse,
  OwedCopyStatus,
  PortfolioResponse,
  TenantCopiesResponse,
  WorkerEmailActivityResponse,
} from '@pa/contracts';
import type { BriefingInput } from './briefing-input.ts';
import { londonDate } from './dates.ts';
import { attentionAsCompliance, type PropertyCompliance } from './compliance-facts.ts';

// The one place that reads what a briefing is written from, for the daily summary and the chat's "daily
// briefing" alike, so that the morning message and the answer in the chat state the same facts from the same
// reads: the whole portfolio, its compliance needing attention, the open deals and the last day's email. It reads
// through a narrow interface of the bridge client's own methods: the summary hands it the worker's typed client,
// the chat a reader over the turn's tools (so that every call is recorded with the turn).

/** A page as a reader whose answers are capped in size (the chat's tools) gives it: marked when it was trimmed. */
export type Page<T> = T & { truncated?: unknown };

// type aliases rather than interfaces: a reader over the tools passes them on as plain argument records
export type PageQuery = { limit: number; cursor?: string };
export type OpenDealsQuery = { status: 'open'; limit: number; cursor?: string };
export type CopiesQuery = { status: OwedCopyStatus[]; limit: number; cursor?: string };

/** The bridge reads a briefing needs, as the typed client's methods of the same names answer them. */
export interface BriefingReads {
  getPortfolio(query: PageQuery): Promise<Page<PortfolioResponse>>;
  /** the compliance needing attention across the whole portfolio, by property */
  getPortfolioCompliance(query: PageQuery): Promise<Page<PortfolioComplianceResponse>>;
  /** one property's compliance: for what a trimmed page of the read above left out */
  getCompliance(propertyId: number): Promise<ComplianceResponse>;
  /** the gas records and EICRs whose copy the tenant is owed, across the whole portfolio */
  getTenantCopies(query: CopiesQuery): Promise<Page<TenantCopiesResponse>>;
  getDeals(query: OpenDealsQuery): Promise<Page<DealsResponse>>;
  /** the worker's email: the platform's and the assistant's own mailboxes', labelled by source */
  getWorkerEmailActivity(query: { hours: number }): Promise<WorkerEmailActivityResponse>;
}

export interface ListPaging {
  /** records a page */
  limit: number;
  /** pages read at most */
  maxPages: number;
}

/** How each list is paged: the summary reads large pages, the chat small ones (a tool result is capped). */
export interface BriefingPaging {
  portfolio: ListPaging;
  compliance: ListPaging;
  deals: ListPaging;
  /** the tenant copies owed (default: as `compliance`) */
  copies?: ListPaging;
}
export type BriefingList = keyof BriefingPaging;

export interface FetchBriefingOptions {
  paging: BriefingPaging;
  /**
   * Every list to its end: a list longer than its paging allows (or a trimmed page) throws BriefingTooLong
   * rather than being cut, as the summary wants (a briefing that silently left properties out would state wrong
   * facts). Without it what was read is kept, as the chat wants (it must answer within its turn).
   */
  whole: boolean;
  /** the hours of email read (default BRIEFING_EMAIL_HOURS) */
  emailHours?: number;
  /**
   * Read the tenant copies owed (due or overdue) across the portfolio, on valid certificates too, which the
   * compliance read (items not valid) leaves out: the briefing and the attention list do.
   */
  tenantCopies?: boolean;
}

/** A list too long to read whole. */
export class BriefingTooLong extends Error {
  override readonly name = 'BriefingTooLong';
  constructor(
    readonly list: BriefingList,
    /** the most records the paging reads */
    readonly most: number,
  ) {
    super(`more than ${most} records, too many for one briefing.`);
  }
}

/** The email a briefing covers: the last day's. */
export const BRIEFING_EMAIL_HOURS = 24;
// per-property compliance reads in flight at once (only after a trimmed page)
const COMPLIANCE_CONCURRENCY = 4;
/** The copies a briefing lists: those already late and those still to serve (the window picks among them). */
const OWED: OwedCopyStatus[] = ['due', 'overdue'];

/** What a briefing is written from; `today` is the platform's own London date. */
export async function fetchBriefingData(
  reads: BriefingReads,
  { paging, whole, emailHours = BRIEFING_EMAIL_HOURS, tenantCopies = false }: FetchBriefingOptions,
): Promise<BriefingInput> {
  const copyPaging = paging.copies ?? paging.compliance;
  const pages = <T extends { next_cursor: string | null }>(
    list: BriefingList,
    read: (cursor: string | null) => Promise<Page<T>>,
  ) => allPages(list, list === 'copies' ? copyPaging : paging[list]!, whole, read);
  const withCursor = <Q extends object>(query: Q, cursor: string | null) =>
    cursor ? { ...query, cursor } : query;

  // the portfolio first: it gives the date, the properties and which of them need attention
  const portfolio = await pages('portfolio', (cursor) =>
    reads.getPortfolio(withCursor({ limit: paging.portfolio.limit }, cursor)),
  );
  const [attention, copies, deals, emails] = await Promise.all([
    pages('compliance', (cursor) =>
      reads.getPortfolioCompliance(withCursor({ limit: paging.compliance.limit }, cursor)),
    ),
    // one paged read for the whole portfolio, not one compliance read per let property
    tenantCopies
      ? pages('copies', (cursor) =>
          reads.getTenantCopies(withCursor({ status: OWED, limit: copyPaging.limit }, cursor)),
        )
      : null,
    pages('deals', (cursor) =>
      reads.getDeals(withCursor({ status: 'open' as const, limit: paging.deals.limit }, cursor)),
    ),
    reads.getWorkerEmailActivity({ hours: emailHours }),
  ]);

  const first = portfolio.pages[0]!;
  const properties = portfolio.pages.flatMap((page) => page.properties);
  const byId = new Map(properties.map((p) => [p.id, p]));
  const compliance: PropertyCompliance[] = [];
  for (const page of attention.pages) {
    for (const p of page.properties) {
      const property = byId.get(p.property_id);
      // a property added between the two reads is left for the next briefing rather than half-described
      if (property) compliance.push({ property, compliance: attentionAsCompliance(p, page.as_of) });
    }
  }
  if (attention.trimmed) {
    // a trimmed page's cursor points past the properties it left out: those the portfolio says need attention
    // are read one at a time, within the same bound as the pages
    const given = new Set(compliance.map((c) => c.property.id));
    const room = paging.compliance.limit * paging.compliance.maxPages - given.size;
    const left = properties.filter((p) => p.compliance_status !== 'valid' && !given.has(p.id)).slice(0, room);
    const read = await inBatches(left, COMPLIANCE_CONCURRENCY, (p) => reads.getCompliance(p.id));
    left.forEach((property, i) => compliance.push({ property, compliance: read[i]! }));
  }

  const owed = copies ? copies.pages.flatMap((page) => page.items) : [];
  return {
    tenantName: first.tenant.name,
    today: londonDate(first.as_of),
    summary: first.summary,
    properties,
    compliance,
    deals: deals.pages.flatMap((page) => page.deals),
    emails: emails.items,
    ...(copies ? { copies: owed, copiesUnchecked: uncheckedCopies(properties, owed, copies) } : {}),
  };
}

/**
 * Let properties whose copies were not read: none when the read reached its end; else (the chat's bound was
 * reached, or a page was trimmed) every let property from the last one listed on, as the read walks properties in
 * id order (that last one counted too, as its other record may be what was left out).
 */
function uncheckedCopies(
  properties: PortfolioResponse['properties'],
  owed: TenantCopiesResponse['items'],
  read: { pages: Page<TenantCopiesResponse>[]; trimmed: boolean },
): number {
  const last = read.pages[read.pages.length - 1]!;
  if (last.next_cursor === null && !read.trimmed) return 0;
  const from = owed.length ? owed[owed.length - 1]!.property_id : 0;
  return properties.filter(
    (p) => (p.tenancy_status === 'active' || p.tenancy_status === 'notice_given') && p.id >= from,
  ).length;
}
/** Every page of a list, in order, within its paging; `trimmed` when a page came back cut. */
async function allPages<T extends { next_cursor: string | null }>(
  list: BriefingList,
  paging: ListPaging,
  whole: boolean,
  read: (cursor: string | null) => Promise<Page<T>>,
): Promise<{ pages: Page<T>[]; trimmed: boolean }> {
  const pages: Page<T>[] = [];
  let cursor: string | null = null;
  do {
    if (pages.length === paging.maxPages) {
      if (whole) throw new BriefingTooLong(list, paging.maxPages * paging.limit);
      break;
    }
    const page: Page<T> = await read(cursor);
    pages.push(page);
    if (page.truncated !== undefined) {
      if (whole) throw new BriefingTooLong(list, paging.maxPages * paging.limit);
      // its cursor points past what it left out: the portfolio and the deals end here, the compliance read goes
      // on (what it left out is read property by property)
      if (list !== 'compliance') break;
    }
    cursor = page.next_cursor;
  } while (cursor);
  return { pages, trimmed: pages.some((page) => page.truncated !== undefined) };
}

/** `read` of every item, at most `width` at a time, in the items' order. */
async function inBatches<I, O>(items: I[], width: number, read: (item: I) => Promise<O>): Promise<O[]> {
  const out = new Array<O>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await read(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return out;
}

export { londonDate } from './dates.ts';
