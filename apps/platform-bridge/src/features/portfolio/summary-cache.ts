// The portfolio summary aggregates the whole portfolio, so its cost grows with the portfolio while a keyset page
// does not. Requests for the same tenant and London day share one computation while it runs (single-flight), and
// with `ttlMs` > 0 reuse its result for that long: figures may then be up to `ttlMs` old.
const MAX_TENANTS = 10_000;

export function createSummaryCache<T>(ttlMs: number) {
  const entries = new Map<number, { day: string; at: number; value: Promise<T> }>();
  return {
    get(tenantId: number, day: string, compute: () => Promise<T>): Promise<T> {
      const hit = entries.get(tenantId);
      if (hit && hit.day === day && (hit.at === -1 || Date.now() - hit.at < ttlMs)) return hit.value;
      if (entries.size >= MAX_TENANTS) entries.clear();
      const entry = { day, at: -1, value: compute() };
      entries.set(tenantId, entry);
      entry.value.then(
        () => {
          if (ttlMs > 0) entry.at = Date.now();
          else if (entries.get(tenantId) === entry) entries.delete(tenantId);
        },
        () => {
          if (entries.get(tenantId) === entry) entries.delete(tenantId);
        },
      );
      return entry.value;
    },
    /** Forgets a tenant's summary, e.g. after its records changed. */
    invalidate(tenantId: number): void {
      entries.delete(tenantId);
    },
  };
}
