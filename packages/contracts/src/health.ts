import { z } from 'zod';

export const HealthResponse = z.strictObject({ status: z.literal('ok') });
export const ReadinessResponse = z.strictObject({
  status: z.enum(['ok', 'unavailable']),
  checks: z.record(z.string(), z.enum(['ok', 'unavailable'])),
});
