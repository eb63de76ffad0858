import { z } from 'zod';

// Query and path values arrive as strings. These accept only plain decimal digits (no `1.5`, `1e2`, ` 7`),
// so that a typo is reported instead of being silently coerced.
export function intString(min: number, max: number) {
  return z
    .string()
    .regex(/^-?[0-9]{1,16}$/, `must be a whole number between ${min} and ${max}`)
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(min, `must be a whole number between ${min} and ${max}`)
        .max(max, `must be a whole number between ${min} and ${max}`),
    );
}

export const PositiveId = z
  .string()
  .regex(/^[1-9][0-9]{0,9}$/, 'must be a positive integer id')
  .transform(Number)
  .pipe(z.number().int().min(1).max(2_147_483_647, 'must be a positive integer id'));

export const IsoDate = z.iso.date();
export const IsoDateTime = z.iso.datetime();
