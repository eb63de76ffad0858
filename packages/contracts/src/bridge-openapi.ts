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
import { bridgeRoutes, RATE_LIMIT_HEADERS } from './bridge-routes.ts';
import {
  ComplianceUpdateProposalBody,
  DealProposalBody,
  FinancialLogProposalBody,
  Proposal,
  ProposalCreated,
  ProposalsResponse,
} from './proposals.ts';
import {
  ApproveResponse,
  AuditResponse,
  RejectResponse,
  ReviewItem,
  ReviewQueueResponse,
} from './review-queue.ts';
import type { OpenApiDocument } from './health.ts';
import { buildOpenApiDocument } from './openapi.ts';

export function buildBridgeOpenApi(): OpenApiDocument {
  return buildOpenApiDocument({
    title: 'Property platform: assistant bridge',
    version: '1.0.0',
    description: [
      'An assistant worker’s access to one tenant’s portfolio, properties, compliance, deals and email activity (read-only), and the proposals it may submit for a workspace admin to approve in the review queue.',
      '',
      'Authentication: `Authorization: Bearer plat_…`, a remote API key of the tenant (scope `bridge:read` to read, `bridge:propose` to propose). Keys in the query string are never accepted.',
      'The bridge is served only for tenants with the `assistant_external_bridge` flag; otherwise every path answers 404 `bridge-not-enabled`. Proposals also need `assistant_bridge_writes` (else 404 `writes-not-enabled`).',
      'No platform record exists before an admin approves a proposal. The review queue’s admin API (`/api/admin`, `Authorization: Bearer padm_…`, scopes `review:read` and `review:write`) needs the flag `assistant_bridge_review_queue` (else 404 `review-queue-not-enabled`); its page is `/settings/review-queue`.',
      'The remote-access settings’ admin API (same base and keys, scope `access:manage`; no flag needed) lists, creates and revokes remote and admin keys, switches the tenant’s flags, manages signed-event endpoints and their deliveries, and reads the access audit that every change writes; its page is `/settings/remote-access`.',
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
      DealProposalBody,
      ComplianceUpdateProposalBody,
      FinancialLogProposalBody,
      ProposalCreated,
      Proposal,
      ProposalsResponse,
      ReviewItem,
      ReviewQueueResponse,
      ApproveResponse,
      RejectResponse,
      AuditResponse,
    },
    securitySchemes: {
      remoteApiKey: {
        type: 'http',
        scheme: 'bearer',
        description: 'Remote API key: `plat_` + 32 base62 + 6-char checksum',
      },
      adminApiKey: {
        type: 'http',
        scheme: 'bearer',
        description:
          'Admin key (review queue, remote access): `padm_` + 32 base62 + 6-char checksum, made with `npm run platform -- admins create`',
      },
    },
    securedSuccessHeaders: RATE_LIMIT_HEADERS,
    routes: bridgeRoutes,
  });
}
