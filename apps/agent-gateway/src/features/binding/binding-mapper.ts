import type { BindingResponse, BindResponse } from '@pa/contracts';
import type { BindingRepository } from './binding-repository.ts';

type BindingRow = NonNullable<Awaited<ReturnType<BindingRepository['find']>>>;

/** A saved binding as the bind call answers it, with the smoke test it passed; never the key. */
export function toBindResponse(
  workerId: string,
  saved: Pick<BindingRow, 'tenantSlug' | 'keyPreview' | 'boundAt'>,
  propertiesTotal: number,
): BindResponse {
  return {
    workerId,
    tenantSlug: saved.tenantSlug,
    keyPreview: saved.keyPreview,
    boundAt: saved.boundAt.toISOString(),
    smokeTest: { ok: true, propertiesTotal },
  };
}

/** A worker's binding as the API reads it back; never the key. */
export function toBindingResponse(workerId: string, b: BindingRow): BindingResponse {
  return {
    workerId,
    tenantSlug: b.tenantSlug,
    keyPreview: b.keyPreview,
    boundAt: b.boundAt.toISOString(),
    propertiesTotal: b.propertiesTotal,
    keyRefusedAt: b.keyRefusedAt?.toISOString() ?? null,
  };
}
