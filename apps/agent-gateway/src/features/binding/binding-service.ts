import type { BindingResponse, BindResponse } from '@pa/contracts';
import { AppError, BadGateway, NotFound, Unprocessable } from '@pa/http-kit';
import type { Logger } from 'pino';
import type { SummaryScheduling } from '../daily-summary/summary-scheduling.ts';
import type { WorkersRepository } from '../workspace/workers-repository.ts';
import { toBindingResponse, toBindResponse } from './binding-mapper.ts';
import type { BindingRepository } from './binding-repository.ts';
import type { KeyCipher } from './key-cipher.ts';
import { type KeyState, watchKey, type WorkerCredentials } from './key-refusals.ts';

/** What binding needs from the bridge: the portfolio read with a candidate key. */
export interface SmokeTestClient {
  portfolioWithKey(
    apiKey: string,
  ): Promise<{ tenant: { slug: string }; summary: { properties_total: number } }>;
}

/** The bridge client's failure, as far as binding needs to tell failures apart. */
export interface BridgeFailure {
  kind: 'unauthorized' | 'forbidden' | 'not-found' | 'rate-limited' | 'contract' | 'unavailable';
  code?: string | undefined;
}

function isBridgeFailure(err: unknown): err is Error & BridgeFailure {
  return err instanceof Error && typeof (err as { kind?: unknown }).kind === 'string';
}

const Unreachable = (detail: string) =>
  new BadGateway('platform-unreachable', detail, { title: 'Platform unreachable' });

/** `plat_AbCd1234…`: the key's non-secret lookup prefix, as the platform shows it. */
export function keyPreview(apiKey: string): string {
  return `${apiKey.slice(0, 13)}…`;
}

// Binding a worker to a platform tenant: the key is tried against the bridge first, and only a key that reads the
// named tenant's portfolio is saved. A failure leaves any existing binding exactly as it was.
export function createBindingService(deps: {
  bindings: BindingRepository;
  workers: WorkersRepository;
  bridge: SmokeTestClient;
  cipher: KeyCipher;
  logger: Logger;
  /** the daily summary's schedulers follow the binding (null while the summary is off) */
  summary?: Pick<SummaryScheduling, 'workerBound' | 'workerUnbound'> | null;
  /**
   * the worker's copy of the knowledge corpus follows the binding: a bind asks for a (full) sync, and a bind to
   * another tenant first drops the old tenant's copy (unbinding drops it by the database's cascade)
   */
  knowledge?: { drop(workerId: string): Promise<void>; request(workerIds: string[]): Promise<void> };
}) {
  const { workers, bridge, cipher, logger } = deps;
  const { bindings } = deps;

  async function smokeTest(tenantSlug: string, apiKey: string) {
    try {
      const portfolio = await bridge.portfolioWithKey(apiKey);
      if (portfolio.tenant.slug !== tenantSlug) {
        throw new Unprocessable('tenant-mismatch', `The key belongs to another tenant than "${tenantSlug}".`);
      }
      return portfolio.summary.properties_total;
    } catch (err) {
      if (err instanceof AppError) throw err;
      if (!isBridgeFailure(err)) throw err;
      logger.info({ kind: err.kind, code: err.code }, 'binding smoke test failed');
      if (err.kind === 'unauthorized' || err.kind === 'forbidden') {
        throw new Unprocessable(
          'platform-key-rejected',
          'The platform refused the API key (unknown, revoked or without bridge:read).',
        );
      }
      if (err.kind === 'not-found' && err.code === 'bridge-not-enabled') {
        throw new Unprocessable(
          'platform-bridge-not-enabled',
          'The platform does not serve the assistant bridge for this tenant: turn on assistant_external_bridge.',
        );
      }
      throw Unreachable(
        err.kind === 'contract'
          ? 'The platform answered with a response that breaks the bridge contract.'
          : 'The platform could not be reached or did not answer in time.',
      );
    }
  }

  return {
    async bind(
      workspaceId: string,
      workerId: string,
      tenantSlug: string,
      apiKey: string,
    ): Promise<BindResponse> {
      const worker = await workers.require(workspaceId, workerId);
      if (!worker.skillPacks.includes('property-uk')) {
        throw new Unprocessable(
          'skill-pack-required',
          'Only a worker with the property-uk skill pack can be bound to a platform tenant.',
        );
      }
      const propertiesTotal = await smokeTest(tenantSlug, apiKey);
      const data = {
        tenantSlug,
        keyCiphertext: cipher.encrypt(apiKey),
        keyPreview: keyPreview(apiKey),
        propertiesTotal,
        boundAt: new Date(),
        keyRefusedAt: null, // the smoke test has just accepted the key
      };
      const before = await bindings.find(workspaceId, workerId);
      const saved = await bindings.save(workspaceId, workerId, data);
      if (before && before.tenantSlug !== tenantSlug) await deps.knowledge?.drop(workerId);
      await deps.knowledge?.request([workerId]);
      await deps.summary?.workerBound(workerId);
      return toBindResponse(workerId, saved, propertiesTotal);
    },

    async get(workspaceId: string, workerId: string): Promise<BindingResponse> {
      await workers.require(workspaceId, workerId);
      const b = await bindings.find(workspaceId, workerId);
      if (!b) throw new NotFound('worker-not-bound', 'This worker is not bound to a platform tenant.');
      return toBindingResponse(workerId, b);
    },

    async unbind(workspaceId: string, workerId: string) {
      await workers.require(workspaceId, workerId);
      const unbound = await bindings.delete(workspaceId, workerId);
      if (unbound) await deps.summary?.workerUnbound(workerId);
      return { workerId, unbound };
    },

    /** The worker's tenant and decrypted key, for its tools, sync and summary; null when unbound. */
    async credentials(workerId: string): Promise<WorkerCredentials | null> {
      const b = await bindings.findForTurn(workerId);
      if (!b) return null;
      const { boundAt } = b;
      // a failed record must not hide the bridge call's own outcome: it is logged, and the next turn or sync retries
      const record = async (what: string, write: () => Promise<boolean>) => {
        try {
          if (await write()) logger.info({ workerId }, what);
        } catch (err) {
          logger.warn({ workerId, err }, `could not record that ${what}`);
        }
      };
      const state: KeyState = {
        refused: b.keyRefusedAt !== null,
        recordRefused: () =>
          record('the platform refused the worker’s key', () =>
            bindings.markKeyRefused(workerId, boundAt, new Date()),
          ),
        recordAccepted: () =>
          record('the platform accepts the worker’s key again', () =>
            bindings.clearKeyRefused(workerId, boundAt),
          ),
      };
      return {
        tenantSlug: b.tenantSlug,
        apiKey: cipher.decrypt(b.keyCiphertext),
        watch: (client) => watchKey(client, state),
      };
    },
  };
}
export type BindingService = ReturnType<typeof createBindingService>;
