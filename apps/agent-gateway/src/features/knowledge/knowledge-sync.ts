import type { Logger } from 'pino';
import type { PlatformBridge } from '../../clients/bridge/platform-bridge-client.ts';
import { BridgeError } from '../../clients/bridge/bridge-errors.ts';
import type { WorkerCredentials } from '../binding/key-refusals.ts';
import { KnowledgeLeaseLost, type KnowledgeSyncRepository } from './knowledge-sync-repository.ts';

// One sync of a bound worker's copy of its tenant's knowledge corpus (docs/knowledge.md): under the binding's lock,
// the bridge's changes read page by page from the stored cursor (none: the whole corpus), each page applied with its
// next cursor in one transaction, until the bridge says there is no more. A crash between pages loses nothing: the
// next sync reads on from the last page kept. A failure is recorded in words for Settings, and the schedule waits
// (capped exponential backoff); a `knowledge.changed` event still syncs at once.

export const LEASE_MS = 60_000;
/** changes asked for per page: the bridge's most; halved while a page is too large for the client to take */
export const PAGE_LIMIT = 500;
const BACKOFF_FIRST_MS = 10_000;
const BACKOFF_MAX_MS = 15 * 60_000;

export interface KnowledgeSyncDeps {
  store: KnowledgeSyncRepository;
  /** the worker's tenant and key now (its calls watched for a refused key); null when it is not bound */
  credentials: (workerId: string) => Promise<WorkerCredentials | null>;
  bridge: PlatformBridge;
  logger: Logger;
  /** tests: fewer changes per page */
  pageLimit?: number;
  leaseMs?: number;
}

export type KnowledgeSyncOutcome =
  | { outcome: 'synced'; changes: number; pages: number; again: boolean }
  | { outcome: 'busy' }
  | { outcome: 'dropped' }
  | { outcome: 'failed'; error: string };

export function backoffMs(failures: number): number {
  return Math.min(BACKOFF_FIRST_MS * 2 ** Math.max(0, failures - 1), BACKOFF_MAX_MS);
}

/** The failure as a property manager reads it in Settings: no technical words (key scopes, tenants, bridge). */
function inWords(err: unknown): string {
  if (err instanceof BridgeError) {
    switch (err.kind) {
      case 'unauthorized':
        // revoked or unknown: the connection line above says so and what to do (binding/key-refusals.ts)
        return 'The platform no longer accepts Porter’s key, so the agency’s documents could not be read.';
      case 'forbidden':
        return 'The platform does not let Porter’s key read the agency’s documents. Connect again with a key made for the assistant.';
      case 'not-found':
        return err.code === 'bridge-not-enabled'
          ? 'The platform has turned assistant access off for this account, so the agency’s documents could not be read.'
          : 'The platform has no documents to share with Porter (it did not find them).';
      case 'rate-limited':
        return 'The platform asked Porter to slow down; the knowledge documents will be read again shortly.';
      case 'invalid-request':
        return 'The platform did not accept where the last knowledge sync stopped; the copy was kept as it is.';
      case 'contract':
        return 'The platform answered the knowledge read with something Porter could not understand.';
      default:
        return 'The platform could not be reached to read its knowledge documents; Porter will try again.';
    }
  }
  return 'The knowledge documents could not be stored; Porter will try again.';
}

export async function syncKnowledge(
  deps: KnowledgeSyncDeps,
  workerId: string,
): Promise<KnowledgeSyncOutcome> {
  const { store, logger } = deps;
  const leaseMs = deps.leaseMs ?? LEASE_MS;
  const lease = await store.lease(workerId, leaseMs);
  if (!lease) return { outcome: 'busy' };

  const credentials = await deps.credentials(workerId);
  if (!credentials || credentials.tenantSlug !== lease.tenantSlug) {
    // unbound meanwhile (the cascade has removed the copy), or moved to another tenant: the old copy goes
    await store.drop(workerId);
    return { outcome: 'dropped' };
  }
  const client = credentials.watch(deps.bridge.forKey(credentials.apiKey));
  let limit = deps.pageLimit ?? PAGE_LIMIT;
  let changes = 0;
  let pages = 0;
  const fetchPage = async (cursor: string | null) => {
    for (;;) {
      try {
        return await client.getKnowledgeChanges({ cursor: cursor ?? undefined, limit });
      } catch (err) {
        // a page of long documents can outgrow the client's response limit: ask for fewer
        if (err instanceof BridgeError && err.reason === 'too-large' && limit > 1) {
          limit = Math.max(1, Math.floor(limit / 2));
          continue;
        }
        throw err;
      }
    }
  };
  try {
    let next = fetchPage(lease.cursor);
    for (;;) {
      const page = await next;
      const done = !page.has_more;
      // the next page is read while this one is stored, so that the bridge's work and ours overlap (a full sync is
      // twice as fast); should storing fail, that read's outcome is of no interest
      if (!done) {
        next = fetchPage(page.next_cursor);
        next.catch(() => undefined);
      }
      await store.applyPage(lease, page.changes, page.next_cursor, { done, leaseMs });
      lease.cursor = page.next_cursor;
      changes += page.changes.length;
      pages += 1;
      if (done) break;
    }
  } catch (err) {
    if (err instanceof KnowledgeLeaseLost) {
      logger.warn({ workerId }, err.message);
      return { outcome: 'busy' };
    }
    const error = inWords(err);
    logger.warn({ workerId, err, pages }, 'knowledge sync failed');
    await store.recordFailure(lease, error, new Date(Date.now() + backoffMs(lease.failures + 1)));
    return { outcome: 'failed', error };
  }
  const again = await store.release(lease);
  return { outcome: 'synced', changes, pages, again };
}
