import { z } from 'zod';
import type { OperationSpec } from './openapi.ts';

export const HealthResponse = z.strictObject({ status: z.literal('ok') });
export const ReadinessResponse = z.strictObject({
  status: z.enum(['ok', 'unavailable']),
  checks: z.record(z.string(), z.enum(['ok', 'unavailable'])),
});

/** The probes both apps serve, for their OpenAPI documents. */
export function healthOperations(readySummary: string): OperationSpec[] {
  return [
    {
      method: 'get',
      path: '/healthz',
      operationId: 'health',
      summary: 'The process is up',
      tags: ['operations'],
      responses: { 200: { description: 'Up', schema: HealthResponse } },
    },
    {
      method: 'get',
      path: '/readyz',
      operationId: 'ready',
      summary: readySummary,
      tags: ['operations'],
      responses: {
        200: { description: 'Ready', schema: ReadinessResponse },
        503: { description: 'Not ready', schema: ReadinessResponse },
      },
    },
  ];
}
