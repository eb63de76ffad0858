import type { EmbedKeyView as ApiEmbedKey } from '@pa/contracts';
import type { EmbedKeyView } from './embed-keys-service.ts';

/** An embed key as the admin API answers it (contracts' EmbedKeyView): dates as ISO strings, no secret. */
export function toApiEmbedKey(key: EmbedKeyView): ApiEmbedKey {
  return {
    id: key.id,
    workspaceId: key.workspaceId,
    workerId: key.workerId,
    label: key.label,
    keyPrefix: key.keyPrefix,
    origins: [...key.origins],
    allowProposals: key.allowProposals,
    requireVisitorToken: key.requireVisitorToken,
    budgets: { ...key.budgets },
    createdAt: key.createdAt.toISOString(),
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    revokedAt: key.revokedAt?.toISOString() ?? null,
  };
}
