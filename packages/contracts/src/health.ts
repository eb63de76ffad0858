import { z } from 'zod';
import { text } from './text.ts';
import type { RouteSpec } from './routes.ts';

export const HealthResponse = z.strictObject({ status: z.literal('ok') });
export const ReadinessResponse = z.strictObject({
  status: z.enum(['ok', 'unavailable']),
  checks: z.record(text(), z.enum(['ok', 'unavailable'])),
});
// The document describes itself only as far as a client needs to recognise it.
export const OpenApiDocument = z.looseObject({ openapi: z.literal('3.1.0') });
export type OpenApiDocument = z.infer<typeof OpenApiDocument>;

/** The probes and the document both apps serve, as entries of their route tables. */
export function operationsRoutes(readySummary: string) {
  return {
    health: {
      method: 'get',
      path: '/healthz',
      access: 'open',
      summary: 'The process is up',
      logQuietly: true,
      tags: ['operations'],
      responses: { 200: { description: 'Up', schema: HealthResponse } },
    },
    ready: {
      method: 'get',
      path: '/readyz',
      access: 'open',
      summary: readySummary,
      logQuietly: true,
      tags: ['operations'],
      responses: {
        200: { description: 'Ready', schema: ReadinessResponse },
        503: { description: 'Not ready', schema: ReadinessResponse },
      },
    },
    openapi: {
      method: 'get',
      path: '/openapi.json',
      access: 'open',
      summary: 'This OpenAPI 3.1 document',
      tags: ['operations'],
      responses: { 200: { description: 'The document', schema: OpenApiDocument } },
    },
  } as const satisfies Record<string, RouteSpec>;
}
