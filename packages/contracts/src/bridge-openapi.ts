import {
  ComplianceItem,
  ComplianceResponse,
  Deal,
  DealsResponse,
  EmailActivity,
  EmailActivityResponse,
  MailboxesResponse,
  PortfolioResponse,
  Property,
} from './bridge.ts';
import { bridgeRoutes } from './bridge-routes.ts';
import { buildOpenApiDocument } from './openapi.ts';

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
    routes: bridgeRoutes,
  });
}
