import { z } from 'zod';
import { text } from './text.ts';

const wholeNumber = (min: number, max: number) => `must be a whole number between ${min} and ${max}`;

/** An integer between min and max, for callers that hold numbers (tool arguments, client methods). */
export function intNumber(min: number, max: number) {
  return z.number().int().min(min, wholeNumber(min, max)).max(max, wholeNumber(min, max));
}

// Query and path values arrive as strings. These accept only plain decimal digits (no `1.5`, `1e2`, ` 7`),
// so that a typo is reported instead of being silently coerced.
export function intString(min: number, max: number) {
  return text()
    .regex(/^-?[0-9]{1,16}$/, wholeNumber(min, max))
    .transform(Number)
    .pipe(intNumber(min, max));
}

// Platform ids are PostgreSQL `integer` keys. `positive()` rather than `min(1)` so that tool schemas say
// `exclusiveMinimum: 0`, as LLM vendors expect of an id.
export const PositiveIdValue = z
  .number()
  .int()
  .positive()
  .max(2_147_483_647, 'must be a positive integer id');

export const PositiveId = text()
  .regex(/^[1-9][0-9]{0,9}$/, 'must be a positive integer id')
  .transform(Number)
  .pipe(PositiveIdValue);

// A tenant's slug: the platform creates tenants with it and the gateway binds a worker to it.
export const TENANT_SLUG = /^[a-z0-9][a-z0-9-]{1,62}$/;
export const TenantSlug = text().regex(TENANT_SLUG, 'is not a tenant slug');

export const IsoDate = z.iso.date();
export const IsoDateTime = z.iso.datetime();
