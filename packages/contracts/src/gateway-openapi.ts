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
import { buildOpenApiDocument } from './openapi.ts';
import { Channel, ChannelCreated, ChannelsResponse, PairingCodeResponse } from './channels.ts';
import {
  ComplianceUpdateProposalBody,
  DealProposalBody,
  FinancialLogProposalBody,
  ProposalCreated,
} from './proposals.ts';
import { BindingResponse, BindResponse, Worker, WorkersResponse } from './workers.ts';

export function buildGatewayOpenApi(): Record<string, unknown> {
  return buildOpenApiDocument({
    title: 'Agent platform: web chat gateway',
    version: '1.0.0',
    description: [
      'The chat API behind the web UI at `/`, and the assistant workers with their platform binding. JSON is camelCase; errors are RFC 9457 `application/problem+json` with a stable `code`.',
      'Chat routes share a budget of 30 requests per minute per client IP (IETF draft-8 `RateLimit` headers; 429 `rate-limited` with `Retry-After`).',
      'Bind the gateway to localhost or protect `/api/*` when exposing it.',
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
  });
}
