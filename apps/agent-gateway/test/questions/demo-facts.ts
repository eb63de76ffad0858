import type {
  ComplianceItem,
  ComplianceResponse,
  ComplianceType,
  Deal,
  EmailActivity,
  KnowledgeChangesResponse,
  KnowledgeDocument,
  PortfolioProperty,
  PortfolioResponse,
  Property,
} from '@pa/contracts';

// The referee of the question set: what the bridge itself says about the demo tenant, and the facts an answer
// must contain, derived plainly from it. Nothing here imports the provider's or the briefing's code, so a bug
// there cannot hide by being copied here. `today` is the London date of the portfolio's `as_of`, so the facts
// move with the bridge's clock.

/** The reads demo-facts needs; the gateway's PlatformBridgeClient satisfies it. */
export interface BridgeReads {
  getPortfolio(query?: { limit?: number; cursor?: string }): Promise<PortfolioResponse>;
  getProperty(id: number): Promise<Property>;
  getCompliance(propertyId: number): Promise<ComplianceResponse>;
  getDeals(query?: { limit?: number; cursor?: string; status?: 'open' | 'won' | 'lost' | 'all' }): Promise<{
    deals: Deal[];
    next_cursor: string | null;
  }>;
  getEmailActivity(query?: { hours?: number }): Promise<{ items: EmailActivity[] }>;
  getKnowledgeChanges(query?: { cursor?: string; limit?: number }): Promise<KnowledgeChangesResponse>;
}

export interface PropertyFacts {
  id: number;
  ref: string;
  /** first line of the address, e.g. "16 Clarendon Road" */
  street: string;
  town: string;
  postcode: string;
  row: PortfolioProperty;
  property: Property;
  compliance: ComplianceResponse;
}

/**
 * A compliance item with where it is and when something must next be done about it: the earliest of its
 * remedial, next-due and expiry dates (an unsatisfactory EICR is due when its remedial work is, not when the
 * report lapses five years on).
 */
export interface DueItem {
  ref: string;
  type: ComplianceType;
  status: ComplianceItem['status'];
  /** YYYY-MM-DD, or null when the bridge gives no due date */
  due: string | null;
  days: number | null;
  item: ComplianceItem;
}

export interface DemoFacts {
  today: string;
  summary: PortfolioResponse['summary'];
  properties: PropertyFacts[];
  refs: string[];
  byRef(ref: string): PropertyFacts;
  /** every compliance item of the portfolio */
  items: DueItem[];
  /** required types with no item, by property */
  missing: { ref: string; type: ComplianceType }[];
  deals: Deal[];
  openDeals: Deal[];
  emails24: EmailActivity[];
  emails168: EmailActivity[];
  /** the tenant's knowledge corpus as the bridge publishes it (its changes read from the start), newest state */
  knowledge: KnowledgeDocument[];
}

/** YYYY-MM-DD of an instant in Europe/London. */
export function londonDate(iso: string): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: 'Europe/London',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date(iso));
}

/** YYYY-MM-DD plus n calendar days. */
export function addDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

/** Calendar days from `from` to `to` (both YYYY-MM-DD); negative when `to` is earlier. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

async function allPages<T>(read: (cursor?: string) => Promise<{ items: T[]; next: string | null }>) {
  const out: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const { items, next } = await read(cursor);
    out.push(...items);
    if (!next) return out;
    cursor = next;
  }
  throw new Error('more than 100 pages');
}

export async function readDemoFacts(bridge: BridgeReads): Promise<DemoFacts> {
  const first = await bridge.getPortfolio({ limit: 100 });
  const rows = await allPages(async (cursor) => {
    const page = cursor ? await bridge.getPortfolio({ limit: 100, cursor }) : first;
    return { items: page.properties, next: page.next_cursor };
  });
  const today = londonDate(first.as_of);
  const properties = await Promise.all(
    rows.map(async (row): Promise<PropertyFacts> => {
      const [property, compliance] = await Promise.all([
        bridge.getProperty(row.id),
        bridge.getCompliance(row.id),
      ]);
      return {
        id: row.id,
        ref: row.ref,
        street: row.address.line1,
        town: row.address.town,
        postcode: row.address.postcode,
        row,
        property,
        compliance,
      };
    }),
  );
  const deals = await allPages(async (cursor) => {
    const page = await bridge.getDeals({ limit: 100, status: 'all', ...(cursor ? { cursor } : {}) });
    return { items: page.deals, next: page.next_cursor };
  });
  const [emails24, emails168] = await Promise.all([
    bridge.getEmailActivity({ hours: 24 }),
    bridge.getEmailActivity({ hours: 168 }),
  ]);
  const items = properties.flatMap((p) =>
    p.compliance.items.map((item): DueItem => {
      const dates = [item.remedial_due_date, item.next_due_date, item.expiry_date].filter(
        (d): d is string => d !== null,
      );
      const due = dates.length ? dates.sort()[0]! : null;
      return {
        ref: p.ref,
        type: item.type,
        status: item.status,
        due,
        days: due === null ? null : daysBetween(today, due),
        item,
      };
    }),
  );
  const byRef = new Map(properties.map((p) => [p.ref, p]));
  return {
    today,
    summary: first.summary,
    properties,
    refs: properties.map((p) => p.ref),
    byRef(ref) {
      const p = byRef.get(ref);
      if (!p) throw new Error(`the demo has no property ${ref}`);
      return p;
    },
    items,
    missing: properties.flatMap((p) => p.compliance.missing.map((type) => ({ ref: p.ref, type }))),
    deals,
    openDeals: deals.filter((d) => d.status === 'open'),
    emails24: emails24.items,
    emails168: emails168.items,
    knowledge: await readCorpus(bridge),
  };
}

/** Every live document of the corpus, by following the bridge's changes read to its end. */
async function readCorpus(bridge: BridgeReads): Promise<KnowledgeDocument[]> {
  const docs = new Map<number, KnowledgeDocument>();
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const res = await bridge.getKnowledgeChanges({ limit: 500, ...(cursor ? { cursor } : {}) });
    for (const c of res.changes) {
      if (c.deleted) docs.delete(c.id);
      else docs.set(c.id, c);
    }
    cursor = res.next_cursor;
    if (!res.has_more) break;
  }
  return [...docs.values()];
}

// ---- derivations the questions use ----------------------------------------------------------------------

const unique = (refs: string[]) => [...new Set(refs)].sort();

export function refsWithItems(facts: DemoFacts, pred: (i: DueItem) => boolean): string[] {
  return unique(facts.items.filter(pred).map((i) => i.ref));
}

/** Properties holding an item of `type` that has expired (overdue). */
export function expiredRefs(facts: DemoFacts, type?: ComplianceType): string[] {
  return refsWithItems(facts, (i) => (!type || i.type === type) && i.status === 'expired');
}

/** Properties whose only items of `type` are valid (none expired, expiring or missing). */
export function cleanRefs(facts: DemoFacts, type: ComplianceType): string[] {
  return facts.properties
    .filter(
      (p) =>
        p.compliance.items.some((i) => i.type === type) &&
        p.compliance.items.every((i) => i.type !== type || i.status === 'valid') &&
        !p.compliance.missing.includes(type),
    )
    .map((p) => p.ref)
    .sort();
}

/** Items falling due from today to today + days (inclusive), not yet expired. */
export function dueWithin(facts: DemoFacts, days: number, type?: ComplianceType): DueItem[] {
  return facts.items.filter(
    (i) => (!type || i.type === type) && i.days !== null && i.days >= 0 && i.days <= days,
  );
}

/** Items falling due after today + days (and so outside the window). */
export function dueAfter(facts: DemoFacts, days: number, type?: ComplianceType): DueItem[] {
  return facts.items.filter((i) => (!type || i.type === type) && i.days !== null && i.days > days);
}

export function arrears(facts: DemoFacts): { ref: string; pence: number }[] {
  return facts.properties
    .filter((p) => p.property.arrears_pence > 0)
    .map((p) => ({ ref: p.ref, pence: p.property.arrears_pence }))
    .sort((a, b) => b.pence - a.pence);
}

/**
 * Properties whose arrears grew in the last 30 days, by the bridge's own numbers (arrears_30_days_ago_pence, null
 * when its history does not reach back that far), the largest rise first.
 */
export function arrearsGrown(facts: DemoFacts): { ref: string; pence: number; risePence: number }[] {
  return facts.properties
    .filter((p) => p.property.arrears_pence > 0 && p.property.arrears_30_days_ago_pence !== null)
    .map((p) => ({
      ref: p.ref,
      pence: p.property.arrears_pence,
      risePence: p.property.arrears_pence - p.property.arrears_30_days_ago_pence!,
    }))
    .filter((a) => a.risePence > 0)
    .sort((a, b) => b.risePence - a.risePence);
}

/** Properties with no one living in them: every unit vacant. */
export function voidRefs(facts: DemoFacts): string[] {
  return facts.properties
    .filter((p) => p.property.units_total > 0 && p.property.units_occupied === 0)
    .map((p) => p.ref)
    .sort();
}

/** Tenancies (active or under notice) whose end date is from today to today + days. */
export function tenanciesEnding(facts: DemoFacts, days: number): { ref: string; end: string }[] {
  return facts.properties
    .flatMap((p) => {
      const t = p.property.current_tenancy;
      if (!t || !t.end_date || (t.status !== 'active' && t.status !== 'notice_given')) return [];
      const d = daysBetween(facts.today, t.end_date);
      return d >= 0 && d <= days ? [{ ref: p.ref, end: t.end_date }] : [];
    })
    .sort((a, b) => a.end.localeCompare(b.end));
}

/** Tenancies (active or under notice) ending after today + days: not in the window. */
export function tenanciesEndingAfter(facts: DemoFacts, days: number): string[] {
  return facts.properties
    .filter((p) => {
      const t = p.property.current_tenancy;
      return (
        t &&
        t.end_date &&
        t.status !== 'ended' &&
        t.status !== 'pending' &&
        daysBetween(facts.today, t.end_date) > days
      );
    })
    .map((p) => p.ref)
    .sort();
}

export function townRefs(facts: DemoFacts, town: string): string[] {
  return facts.properties
    .filter((p) => p.town.toLowerCase() === town.toLowerCase())
    .map((p) => p.ref)
    .sort();
}

export function refOfDeal(facts: DemoFacts, deal: Deal): string | null {
  return facts.properties.find((p) => p.id === deal.property_id)?.ref ?? null;
}

/**
 * Inbound mail that asks for a response and has had none: no outbound message later in the same thread.
 * `thread` is the wider window the replies are looked for in (a reply can only follow its message).
 */
export function emailsNeedingReply(
  emails: EmailActivity[],
  thread: EmailActivity[] = emails,
): EmailActivity[] {
  return emails.filter(
    (e) =>
      e.direction === 'inbound' &&
      e.requires_response &&
      !thread.some(
        (o) => o.direction === 'outbound' && o.thread_id === e.thread_id && o.received_at > e.received_at,
      ),
  );
}
