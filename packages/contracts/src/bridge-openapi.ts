import {
  ComplianceItem,
  ComplianceResponse,
  Deal,
  DealsQuery,
  DealsResponse,
  EmailActivity,
  EmailActivityQuery,
  EmailActivityResponse,
  MailboxesResponse,
  PortfolioQuery,
  PortfolioResponse,
  Property,
  PropertyIdParams,
} from './bridge.ts';
import { healthOperations } from './health.ts';
import { buildOpenApiDocument, type OperationSpec } from './openapi.ts';

const bearer = [{ remoteApiKey: [] as string[] }];
const rateHeaders = {
  RateLimit: { description: 'IETF draft-8 `RateLimit`: remaining quota and reset of the per-key window' },
  'RateLimit-Policy': { description: 'IETF draft-8 `RateLimit-Policy`: the per-key limit and window' },
};
const common = { 401: ['invalid-api-key'], 404: ['bridge-not-enabled'], 429: ['rate-limited'] };

const operations: OperationSpec[] = [
  {
    method: 'get',
    path: '/api/assistant-bridge/portfolio',
    operationId: 'getPortfolio',
    summary: 'Portfolio summary and one page of properties',
    description:
      'Keyset pagination by property id: pass `next_cursor` back as `cursor` until it is null. The summary always covers the whole portfolio.',
    tags: ['bridge'],
    security: bearer,
    query: PortfolioQuery,
    responses: { 200: { description: 'The portfolio', schema: PortfolioResponse, headers: rateHeaders } },
    problems: { 400: ['validation-failed'], ...common },
  },
  {
    method: 'get',
    path: '/api/assistant-bridge/properties/:id',
    operationId: 'getProperty',
    summary: 'One property, with its current tenancy and compliance summary',
    description: 'Carries an `ETag`; send it back in `If-None-Match` to get 304 when nothing changed.',
    tags: ['bridge'],
    security: bearer,
    params: PropertyIdParams,
    responses: {
      200: {
        description: 'The property',
        schema: Property,
        headers: { ETag: { description: 'entity tag' } },
      },
      304: { description: 'Not modified since the ETag in If-None-Match' },
    },
    problems: {
      400: ['validation-failed'],
      401: ['invalid-api-key'],
      404: ['property-not-found', 'bridge-not-enabled'],
      429: ['rate-limited'],
    },
  },
  {
    method: 'get',
    path: '/api/assistant-bridge/properties/:id/compliance',
    operationId: 'getPropertyCompliance',
    summary: "A property's compliance items with computed status, and the required types with no item",
    description:
      'Statuses are judged on today’s date in Europe/London: `missing`, then `expired`, then `expiring_soon` (within the type’s window or with a remedial fix open), else `valid`. The property’s status is its worst item.',
    tags: ['bridge'],
    security: bearer,
    params: PropertyIdParams,
    responses: { 200: { description: 'Compliance', schema: ComplianceResponse } },
    problems: {
      400: ['validation-failed'],
      401: ['invalid-api-key'],
      404: ['property-not-found', 'bridge-not-enabled'],
      429: ['rate-limited'],
    },
  },
  {
    method: 'get',
    path: '/api/assistant-bridge/deals',
    operationId: 'listDeals',
    summary: 'Deals, open ones by default',
    tags: ['bridge'],
    security: bearer,
    query: DealsQuery,
    responses: { 200: { description: 'Deals', schema: DealsResponse } },
    problems: { 400: ['validation-failed'], ...common },
  },
  {
    method: 'get',
    path: '/api/assistant-bridge/email-activity',
    operationId: 'listEmailActivity',
    summary: 'Email activity of the last `hours` hours, newest first (snippets only, never full bodies)',
    tags: ['bridge'],
    security: bearer,
    query: EmailActivityQuery,
    responses: { 200: { description: 'Email activity', schema: EmailActivityResponse } },
    problems: { 400: ['validation-failed'], ...common },
  },
  {
    method: 'get',
    path: '/api/assistant-bridge/mailboxes',
    operationId: 'listMailboxes',
    summary: 'Mailboxes the platform polls (the agent platform must not connect these itself)',
    tags: ['bridge'],
    security: bearer,
    responses: { 200: { description: 'Mailboxes', schema: MailboxesResponse } },
    problems: common,
  },
  ...healthOperations('The database is reachable'),
];

export function buildBridgeOpenApi(): Record<string, unknown> {
  return buildOpenApiDocument({
    title: 'Property platform: assistant bridge',
    version: '1.0.0',
    description: [
      'Read-only access for an assistant worker to one tenant’s portfolio, properties, compliance, deals and email activity.',
      '',
      'Authentication: `Authorization: Bearer plat_…`, a remote API key of the tenant (scope `bridge:read`). Keys in the query string are never accepted.',
      'The bridge is served only for tenants with the `assistant_external_bridge` flag; otherwise every path answers 404 `bridge-not-enabled`.',
      'Errors are RFC 9457 `application/problem+json` with a stable `code`. Rate limit per key, with IETF draft-8 `RateLimit` headers.',
      'JSON is snake_case; money is integer pence (GBP); timestamps are ISO 8601 UTC; compliance dates are judged in Europe/London.',
      'Query parameters are strict: unknown parameters are rejected with 400.',
    ].join('\n'),
    servers: [
      { url: '/', description: 'The platform serving this document (locally http://localhost:4000)' },
    ],
    schemas: {
      PortfolioResponse,
      Property,
      ComplianceItem,
      ComplianceResponse,
      Deal,
      DealsResponse,
      EmailActivity,
      EmailActivityResponse,
      MailboxesResponse,
    },
    securitySchemes: {
      remoteApiKey: {
        type: 'http',
        scheme: 'bearer',
        description: 'Remote API key: `plat_` + 32 base62 + 6-char checksum',
      },
    },
    operations,
  });
}
