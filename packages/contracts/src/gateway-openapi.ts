import {
  ChatChunk,
  ChatRequest,
  ChatResponse,
  ChatStreamQuery,
  OpenAICompletion,
  OpenAICompletionRequest,
  ClearRequest,
  ClearResponse,
  ProvidersQuery,
  ProvidersResponse,
  StreamError,
} from './chat.ts';
import { healthOperations } from './health.ts';
import { buildOpenApiDocument, type OperationSpec } from './openapi.ts';

const rateHeaders = {
  RateLimit: { description: 'IETF draft-8 `RateLimit`: remaining requests and reset of the per-IP window' },
  'RateLimit-Policy': { description: 'IETF draft-8 `RateLimit-Policy`: 30 requests per 60 s per client IP' },
};

const operations: OperationSpec[] = [
  {
    method: 'post',
    path: '/api/chat',
    operationId: 'chat',
    summary: 'One chat turn, answered as JSON',
    description:
      'Without `sessionId` the server issues one; pass it back to continue the conversation (the last 20 turns form the context).',
    tags: ['chat'],
    body: ChatRequest,
    responses: { 200: { description: 'The reply', schema: ChatResponse, headers: rateHeaders } },
    problems: {
      400: ['validation-failed', 'malformed-json', 'unknown-provider'],
      413: ['payload-too-large'],
      415: ['unsupported-media-type'],
      429: ['rate-limited'],
      502: ['provider-error', 'provider-unavailable'],
      503: ['provider-rate-limited'],
    },
  },
  {
    method: 'get',
    path: '/api/chat/stream',
    operationId: 'chatStream',
    summary: 'One chat turn, streamed as server-sent events',
    description: [
      '`text/event-stream`. Each event has an `id:` and `data: <JSON>` in the OpenAI `chat.completion.chunk` shape',
      '(schema `ChatChunk`): first `delta.role = "assistant"` with `session_id`, then `delta.content` deltas, then an',
      'empty delta with `finish_reason: "stop"`, then `data: [DONE]`. A `: ping` comment every 15 s. An error after the',
      'stream started is `data: {"error": {...}}` (schema `StreamError`) followed by `data: [DONE]`. If the client goes',
      'away the turn is stopped and stored as `interrupted`. A repeated `requestId` replays the stored reply. At most 10',
      'streams may be open per client IP.',
    ].join(' '),
    tags: ['chat'],
    query: ChatStreamQuery,
    responses: {
      200: {
        description: 'An event stream of ChatChunk events, then [DONE]',
        contentType: 'text/event-stream',
        schema: [ChatChunk, StreamError],
        headers: rateHeaders,
      },
    },
    problems: {
      400: ['validation-failed', 'unknown-provider'],
      409: ['turn-in-progress'],
      429: ['rate-limited', 'too-many-streams'],
    },
  },
  {
    method: 'get',
    path: '/api/providers',
    operationId: 'listProviders',
    summary: 'The configured providers and the active one (for a session, if given)',
    tags: ['chat'],
    query: ProvidersQuery,
    responses: { 200: { description: 'Providers', schema: ProvidersResponse } },
    problems: { 400: ['validation-failed'] },
  },
  {
    method: 'post',
    path: '/api/clear',
    operationId: 'clearSession',
    summary: "Deletes a session's stored turns (clearing an unknown session is not an error)",
    tags: ['chat'],
    body: ClearRequest,
    responses: { 200: { description: 'Cleared', schema: ClearResponse } },
    problems: { 400: ['validation-failed', 'malformed-json'], 415: ['unsupported-media-type'] },
  },
  {
    method: 'post',
    path: '/v1/chat/completions',
    operationId: 'openaiChatCompletions',
    summary:
      'OpenAI-compatible chat completions (streaming and not), on the same sessions, limits and providers',
    description: [
      'For existing OpenAI clients: point their base URL at `/v1`. Only the last message (a user message) is taken:',
      'the conversation lives server-side in the session named by `user` (a new session when absent; its id comes',
      'back as `session_id` and in `X-Session-Id`). `model` picks a provider by name, else the default. With',
      '`stream: true` the answer is the same event stream as `/api/chat/stream`. Unknown request parameters are',
      'ignored; errors are problem+json.',
    ].join(' '),
    tags: ['chat'],
    body: OpenAICompletionRequest,
    responses: {
      200: {
        description: 'The completion, or with `stream: true` an event stream of ChatChunk events',
        schema: OpenAICompletion,
        headers: rateHeaders,
      },
    },
    problems: {
      400: ['validation-failed', 'malformed-json', 'unknown-provider'],
      415: ['unsupported-media-type'],
      429: ['rate-limited', 'too-many-streams'],
      502: ['provider-error', 'provider-unavailable'],
    },
  },
  ...healthOperations('The database is reachable (Redis is reported but optional)'),
];

export function buildGatewayOpenApi(): Record<string, unknown> {
  return buildOpenApiDocument({
    title: 'Agent platform: web chat gateway',
    version: '1.0.0',
    description: [
      'The chat API behind the web UI at `/`. JSON is camelCase; errors are RFC 9457 `application/problem+json` with a stable `code`.',
      'Chat routes share a budget of 30 requests per minute per client IP (IETF draft-8 `RateLimit` headers; 429 `rate-limited` with `Retry-After`).',
      'Bind the gateway to localhost or protect `/api/*` when exposing it.',
    ].join('\n'),
    servers: [{ url: '/', description: 'The gateway serving this document (locally http://localhost:3000)' }],
    schemas: { ChatResponse, ChatChunk, StreamError, ProvidersResponse, ClearResponse, OpenAICompletion },
    operations,
  });
}
