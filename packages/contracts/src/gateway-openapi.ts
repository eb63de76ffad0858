import {
  ChatChunk,
  ChatResponse,
  ClearResponse,
  OpenAICompletion,
  ProvidersResponse,
  SessionHistory,
  SessionListResponse,
  StreamError,
} from './chat.ts';
import { RunNowResponse, SummaryConfig, SummaryRun, SummaryRunsResponse } from './daily-summary.ts';
import { gatewayRoutes } from './gateway-routes.ts';
import type { OpenApiDocument } from './health.ts';
import { buildOpenApiDocument } from './openapi.ts';
import { Channel, ChannelCreated, ChannelsResponse, PairingCodeResponse } from './channels.ts';
import {
  ComplianceUpdateProposalBody,
  DealProposalBody,
  FinancialLogProposalBody,
  ProposalCreated,
} from './proposals.ts';
import { BindingResponse, BindResponse, Worker, WorkersResponse } from './workers.ts';

export function buildGatewayOpenApi(): OpenApiDocument {
  return buildOpenApiDocument({
    title: 'Agent platform: web chat gateway',
    version: '1.0.0',
    description: [
      'The chat API behind the web UI at `/`, and the assistant workers with their platform binding. JSON is camelCase; errors are RFC 9457 `application/problem+json` with a stable `code`.',
      'Chat routes share a budget of 30 requests per minute per client IP (IETF draft-8 `RateLimit` headers; 429 `rate-limited` with `Retry-After`).',
      'Access: on a loopback `HOST` the gateway may run with `GATEWAY_AUTH=none` (every caller is the operator). With `GATEWAY_AUTH=token` (required on any other host) every `/api` and `/v1` route except the `open` and `signed` ones needs a device token (`gwt_…`, from `POST /api/pairing/redeem`) as a bearer or the `gw_session` cookie, holding the scope the operation lists under `security`, or the operator’s `GATEWAY_ADMIN_TOKEN` as a bearer: 401 `unauthorized` (with `WWW-Authenticate: Bearer`), 403 `insufficient-scope`, 403 `workspace-forbidden` (an `X-Workspace-Id` of another workspace than the device’s; a device without the header acts in its own). Requests that change things and carry an `Origin` other than the gateway’s own or a listed `CORS_ORIGIN`, and cookie-authenticated ones without such an `Origin`, answer 403 `origin-not-allowed`. A `Host` outside `ALLOWED_HOSTS` answers 403 `host-not-allowed` (the health probes excepted).',
      'With `PLATFORM_BRIDGE_WRITES=true` and a bound key with `bridge:propose`, workers get the tools `platform-propose-deal`, `platform-propose-compliance-update` and `platform-propose-financial-log`, whose arguments are the platform’s proposal bodies (`DealProposalBody`, `ComplianceUpdateProposalBody`, `FinancialLogProposalBody` below). A proposal creates no record: the assistant says it awaits review in the platform’s review queue.',
    ].join('\n'),
    servers: [{ url: '/', description: 'The gateway serving this document (locally http://localhost:3000)' }],
    schemas: {
      ChatResponse,
      ChatChunk,
      StreamError,
      ProvidersResponse,
      ClearResponse,
      SessionHistory,
      SessionListResponse,
      OpenAICompletion,
      Worker,
      WorkersResponse,
      BindResponse,
      BindingResponse,
      Channel,
      ChannelCreated,
      ChannelsResponse,
      PairingCodeResponse,
      SummaryConfig,
      SummaryRun,
      SummaryRunsResponse,
      RunNowResponse,
      DealProposalBody,
      ComplianceUpdateProposalBody,
      FinancialLogProposalBody,
      ProposalCreated,
    },
    routes: gatewayRoutes,
    securitySchemes: {
      deviceToken: {
        type: 'http',
        scheme: 'bearer',
        description:
          'A device token `gwt_…` (its scopes apply), or the operator’s `GATEWAY_ADMIN_TOKEN` (every scope)',
      },
      sessionCookie: {
        type: 'apiKey',
        in: 'cookie',
        name: 'gw_session',
        description: 'The device token as the browser holds it after pairing (HttpOnly, SameSite=Strict)',
      },
    },
  });
}
