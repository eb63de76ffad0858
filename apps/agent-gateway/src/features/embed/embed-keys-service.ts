import { randomBytes } from 'node:crypto';
import { EMBED_KEY_LIMITS, EmbedKeyCreateRequest, EmbedKeyUpdateRequest } from '@pa/contracts';
import {
  Conflict,
  generateSecretToken,
  hashesEqual,
  NotFound,
  parseOrThrow,
  parseSecretToken,
  ValidationFailed,
} from '@pa/http-kit';
import type { KeyCipher } from '../binding/key-cipher.ts';
import { workerNotFound } from '../workspace/workers-repository.ts';
import type { EmbedKeysRepository } from './embed-keys-repository.ts';

// Embed keys (docs/embedding.md): a worker's chat embedded in another site. The key (`gwe_…`) is public, as it sits
// in the host page's HTML; what protects it is its exact origins (checked on every call, and the iframe's
// frame-ancestors), the visitor token and the budgets. It is still stored as SHA-256 beside its lookup prefix, like
// a device token, so a copy of the database holds no usable key. The visitor secret (`gwv_…`) signs the host
// server's visitor tokens (HS256): it must be read back to verify them, so it is stored encrypted with the gateway's
// key cipher. Both are shown once, at creation. A key that may propose changes always requires a visitor token: the
// key is public and an Origin is forged easily outside a browser, so only the host's signature keeps such a key to
// the staff the host signed in.

export interface EmbedBudgets {
  visitorPerMinute: number;
  ipPerMinute: number;
  workspacePerDay: number;
}
export interface EmbedKeyView {
  id: string;
  workspaceId: string;
  workerId: string;
  label: string;
  /** the first characters of the key, for display, e.g. "gwe_3fK9" */
  keyPrefix: string;
  origins: string[];
  allowProposals: boolean;
  /** anonymous visitors are refused: every call needs the host's visitor token */
  requireVisitorToken: boolean;
  budgets: EmbedBudgets;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}
export interface CreatedEmbedKey {
  key: EmbedKeyView;
  /** `gwe_…`, shown once */
  embedKey: string;
  /** `gwv_…`, shown once */
  visitorSecret: string;
}
export interface ActiveEmbedKey extends EmbedKeyView {
  /** the HS256 key of this embed's visitor tokens: the UTF-8 bytes of the decrypted `gwv_…` secret */
  secret: Uint8Array;
  /**
   * The workspace's daily budget, counted once for all its keys: the smallest `workspacePerDay` among its live keys
   * (read with the key, as fresh as it is).
   */
  workspaceDayLimit: number;
}

export interface EmbedKeyInput {
  label?: string | undefined;
  origins: string[];
  allowProposals?: boolean | undefined;
  /** default: allowProposals; false with allowProposals is refused (400 embed-proposals-need-token) */
  requireVisitorToken?: boolean | undefined;
  budgets?: Partial<EmbedBudgets> | undefined;
}

/** An edit: any of the create fields (at least one); those left out keep their value. */
export type EmbedKeyPatch = Partial<EmbedKeyInput>;

const KEY_PREFIX = 'gwe';
const VISITOR_SECRET_PREFIX = 'gwv_';
// Characters of the key shown in lists: the prefix and 4 random characters (enough to tell keys apart, far too
// few to guess the rest). The stored lookup prefix is longer (8 random characters) and never shown.
const DISPLAY_PREFIX_LENGTH = 8;
// last_used_at is written at most once a minute per key: the embed's hot path stays read-only.
const TOUCH_THROTTLE_MS = 60_000;
// A key found live is remembered this long per instance: a revocation made on this instance holds at once, one
// made on another within this time. A key found unknown (or revoked) is remembered as long, so that a page or a
// script repeating a dead key costs no database lookup each time; a new key cannot be among them (its random part
// has never been presented before).
const CACHE_TTL_MS = 5_000;
const CACHE_MAX = 10_000;
const MISSES_MAX = 10_000;

type Row = NonNullable<Awaited<ReturnType<EmbedKeysRepository['byKeyPrefix']>>>;

function toView(row: Row): EmbedKeyView {
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    workerId: row.workerId,
    label: row.label,
    keyPrefix: row.keyPrefix.slice(0, DISPLAY_PREFIX_LENGTH),
    origins: [...row.origins],
    allowProposals: row.allowProposals,
    requireVisitorToken: row.requireVisitorToken,
    budgets: {
      visitorPerMinute: row.visitorPerMinute,
      ipPerMinute: row.ipPerMinute,
      workspacePerDay: row.workspacePerDay,
    },
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt,
    revokedAt: row.revokedAt,
  };
}

const embedKeyNotFound = (id: string) =>
  new NotFound('embed-key-not-found', `No embed key ${id} on this assistant.`);

const proposalsNeedToken = () =>
  new ValidationFailed(
    [
      {
        pointer: '#/requireVisitorToken',
        detail: 'must be true (or left out) for a key that allows proposals',
      },
    ],
    'A key that can propose changes must require a visitor token: the key is public and an Origin can be forged outside a browser, so only visitors the host’s server signs in may use it. Leave requireVisitorToken out (it follows allowProposals) or set it to true.',
    { code: 'embed-proposals-need-token', title: 'A proposing key needs visitor tokens' },
  );

export function createEmbedKeysService(deps: {
  embedKeys: EmbedKeysRepository;
  cipher: KeyCipher;
  onTouchError: (err: unknown) => void;
  /** tests move the clock */
  now?: () => Date;
}) {
  const { embedKeys, cipher } = deps;
  const now = deps.now ?? (() => new Date());
  // live keys by the SHA-256 of the presented key (never the key itself), hex
  const cache = new Map<string, { key: ActiveEmbedKey; until: number }>();
  // unknown or revoked keys by the same hash, until when they are not looked up again
  const misses = new Map<string, number>();
  // every origin some live key names (CORS preflights, and the per-IP gate's refusals: embed-cors.ts), read whole
  // and kept for the same few seconds: no Origin header, made up or not, costs a query of its own
  let liveOrigins: { origins: Promise<Set<string>>; until: number } | null = null;
  // the last set read, which answers while a read fails (the database away): a real site's preflight still passes
  let lastOrigins: Set<string> | null = null;

  function touch(key: ActiveEmbedKey): void {
    const at = now();
    if (!key.lastUsedAt || at.getTime() - key.lastUsedAt.getTime() > TOUCH_THROTTLE_MS) {
      // marked in the cached copy too, so that a cached key is not touched again on every request
      key.lastUsedAt = at;
      embedKeys.touch(key.id, at, TOUCH_THROTTLE_MS).catch(deps.onTouchError);
    }
  }

  /** Drops the cached keys of the workspace: their shared daily budget follows its live keys. */
  function forgetWorkspace(workspaceId: string): void {
    for (const [hash, entry] of cache) if (entry.key.workspaceId === workspaceId) cache.delete(hash);
  }

  function remember(hashKey: string, key: ActiveEmbedKey): void {
    if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
    cache.set(hashKey, { key, until: Date.now() + CACHE_TTL_MS });
  }

  function rememberMiss(hashKey: string): void {
    cache.delete(hashKey);
    // oldest first: a flood of made-up keys pushes out only other misses
    if (misses.size >= MISSES_MAX) misses.delete(misses.keys().next().value!);
    misses.set(hashKey, Date.now() + CACHE_TTL_MS);
  }

  return {
    async create(workspaceId: string, workerId: string, input: EmbedKeyInput): Promise<CreatedEmbedKey> {
      // the same rules as the route's body (the CLI and tests call the service directly)
      const valid = parseOrThrow(EmbedKeyCreateRequest, input);
      const allowProposals = valid.allowProposals ?? false;
      if (allowProposals && valid.requireVisitorToken === false) throw proposalsNeedToken();
      const embedKey = generateSecretToken(KEY_PREFIX);
      const parsed = parseSecretToken(embedKey, [KEY_PREFIX]);
      if (!parsed.ok) throw new Error('a generated embed key did not parse');
      // The HS256 key is this whole string's UTF-8 bytes: the host passes it to its JWT library as it was shown.
      const visitorSecret = `${VISITOR_SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
      const result = await embedKeys.createLimited(
        workspaceId,
        workerId,
        {
          label: valid.label ?? '',
          keyPrefix: parsed.lookupPrefix,
          keyHash: new Uint8Array(parsed.hash),
          origins: valid.origins,
          allowProposals,
          requireVisitorToken: valid.requireVisitorToken ?? allowProposals,
          visitorPerMinute: valid.budgets?.visitorPerMinute ?? EMBED_KEY_LIMITS.visitorPerMinute.default,
          ipPerMinute: valid.budgets?.ipPerMinute ?? EMBED_KEY_LIMITS.ipPerMinute.default,
          workspacePerDay: valid.budgets?.workspacePerDay ?? EMBED_KEY_LIMITS.workspacePerDay.default,
          visitorSecretCipher: cipher.encrypt(visitorSecret),
        },
        EMBED_KEY_LIMITS.keysPerWorker,
      );
      if (result.outcome === 'worker-not-found') throw workerNotFound(workerId);
      if (result.outcome === 'limit') {
        throw new Conflict(
          'embed-key-limit',
          `This assistant already has ${EMBED_KEY_LIMITS.keysPerWorker} embed keys. Revoke one it no longer needs first.`,
        );
      }
      liveOrigins = null;
      forgetWorkspace(workspaceId);
      return {
        key: toView(result.row),
        embedKey,
        visitorSecret,
      };
    },

    /** The worker's keys, newest first, revoked ones included (404 worker-not-found). */
    async list(workspaceId: string, workerId: string): Promise<EmbedKeyView[]> {
      const rows = await embedKeys.list(workspaceId, workerId);
      // no key can name a worker outside the workspace, but an empty list must still tell "no such worker"
      if (rows.length === 0) await requireWorker(workspaceId, workerId);
      return rows.map(toView);
    },

    /**
     * Edits a live key's settings (the key and its visitor secret stay): the fields of create, each optional; those
     * left out keep their value. 404 embed-key-not-found (or worker-not-found), 409 embed-key-revoked, 400
     * embed-proposals-need-token when the result could propose without requiring a visitor token.
     */
    async update(
      workspaceId: string,
      workerId: string,
      id: string,
      patch: EmbedKeyPatch,
    ): Promise<EmbedKeyView> {
      const valid = parseOrThrow(EmbedKeyUpdateRequest, patch);
      const result = await embedKeys.updateLive(workspaceId, workerId, id, (row) => {
        const next = {
          label: valid.label ?? row.label,
          origins: valid.origins ?? row.origins,
          allowProposals: valid.allowProposals ?? row.allowProposals,
          requireVisitorToken: valid.requireVisitorToken ?? row.requireVisitorToken,
          visitorPerMinute: valid.budgets?.visitorPerMinute ?? row.visitorPerMinute,
          ipPerMinute: valid.budgets?.ipPerMinute ?? row.ipPerMinute,
          workspacePerDay: valid.budgets?.workspacePerDay ?? row.workspacePerDay,
        };
        // the rule holds for the key as it ends up, whichever of the two fields the edit named
        if (next.allowProposals && !next.requireVisitorToken) throw proposalsNeedToken();
        return next;
      });
      if (result.outcome === 'not-found') {
        await requireWorker(workspaceId, workerId);
        throw embedKeyNotFound(id);
      }
      if (result.outcome === 'revoked') {
        throw new Conflict('embed-key-revoked', `Embed key ${id} is revoked: make a new key instead.`);
      }
      // This instance drops what it holds of the old settings at once (the key itself, cached by its hash, goes
      // with its workspace's keys, whose shared daily budget may have changed); other instances within CACHE_TTL_MS.
      forgetWorkspace(workspaceId);
      liveOrigins = null;
      return toView(result.row);
    },

    /** Revokes the key (idempotent: a revoked key is answered as it is); 404 embed-key-not-found. */
    async revoke(workspaceId: string, workerId: string, id: string): Promise<EmbedKeyView> {
      await embedKeys.revoke(workspaceId, workerId, id, now());
      const row = await embedKeys.find(workspaceId, workerId, id);
      if (!row) {
        await requireWorker(workspaceId, workerId);
        throw embedKeyNotFound(id);
      }
      forgetWorkspace(row.workspaceId);
      liveOrigins = null;
      return toView(row);
    },

    /**
     * Whether a live key names `origin` (a CORS preflight carries no key, only its origin), at most CACHE_TTL_MS
     * behind another instance's changes.
     */
    async originAllowed(origin: string): Promise<boolean> {
      let entry = liveOrigins;
      const at = now().getTime();
      if (!entry || entry.until <= at) {
        // One read for every caller until it is stale. A failed read is kept as long as a good one, answering from
        // the last set read (or failing, when there is none): while the database is away, a flood of refused
        // calls or preflights still costs one attempt every CACHE_TTL_MS, not one each.
        const read = embedKeys.liveOrigins().then(
          (list) => (lastOrigins = new Set(list)),
          (err: unknown) => {
            if (lastOrigins) return lastOrigins;
            throw err;
          },
        );
        entry = liveOrigins = { origins: read, until: at + CACHE_TTL_MS };
      }
      return (await entry.origins).has(origin);
    },

    /** The live key `rawKey` is, with its visitor secret; null for a malformed, unknown or revoked key. */
    async authenticate(rawKey: string): Promise<ActiveEmbedKey | null> {
      const parsed = parseSecretToken(rawKey, [KEY_PREFIX]);
      if (!parsed.ok) return null;
      const hashKey = parsed.hash.toString('hex');
      const hit = cache.get(hashKey);
      if (hit && hit.until > Date.now()) {
        touch(hit.key);
        return hit.key;
      }
      const missed = misses.get(hashKey);
      if (missed !== undefined) {
        if (missed > Date.now()) return null;
        misses.delete(hashKey);
      }
      const row = await embedKeys.byKeyPrefix(parsed.lookupPrefix);
      if (!row || !hashesEqual(row.keyHash, parsed.hash) || row.revokedAt) {
        rememberMiss(hashKey);
        return null;
      }
      const key: ActiveEmbedKey = {
        ...toView(row),
        secret: new TextEncoder().encode(cipher.decrypt(row.visitorSecretCipher)),
        // its own row is live, so there is at least its own limit
        workspaceDayLimit: (await embedKeys.smallestWorkspacePerDay(row.workspaceId)) ?? row.workspacePerDay,
      };
      touch(key);
      remember(hashKey, key);
      return key;
    },
  };

  async function requireWorker(workspaceId: string, workerId: string): Promise<void> {
    if (!(await embedKeys.workerExists(workspaceId, workerId))) throw workerNotFound(workerId);
  }
}
export type EmbedKeysService = ReturnType<typeof createEmbedKeysService>;
