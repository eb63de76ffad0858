import {
  ChatChunk,
  ChatRequest,
  ChatResponse,
  ChatStreamQuery,
  ClearRequest,
  ClearResponse,
  OpenAICompletion,
  OpenAICompletionQuery,
  OpenAICompletionRequest,
  ProvidersQuery,
  ProvidersResponse,
  SessionHistory,
  SessionHistoryQuery,
  SessionListQuery,
  SessionListResponse,
  SessionParams,
  StreamError,
} from '../chat.ts';
import type { RouteSpec } from '../routes.ts';
import { WebContextResponse } from '../workers.ts';
import { jsonBody, outage } from './shared.ts';

// The web chat, its sessions and the OpenAI-compatible endpoint.

const rateHeaders = {
  RateLimit: { description: 'IETF draft-8 `RateLimit`: remaining requests and reset of the per-IP window' },
  'RateLimit-Policy': { description: 'IETF draft-8 `RateLimit-Policy`: 30 requests per 60 s per client IP' },
};

export const chatRoutes = {
  chat: {
    method: 'post',
    path: '/api/chat',
    access: 'chat',
    summary: 'One chat turn, answered as JSON',
    description:
      'Without `sessionId` the server issues one; pass it back to continue the conversation (the last 20 turns form the context).',
    tags: ['chat'],
    body: ChatRequest,
    responses: { 200: { description: 'The reply', schema: ChatResponse, headers: rateHeaders } },
    problems: {
      400: ['validation-failed', 'malformed-json', 'unknown-provider'],
      ...jsonBody,
      429: ['rate-limited'],
      502: ['provider-error', 'provider-unavailable'],
      503: ['provider-rate-limited', 'database-unavailable'],
    },
  },
  chatStream: {
    method: 'get',
    path: '/api/chat/stream',
    access: 'chat',
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
      ...outage,
    },
  },
  listProviders: {
    method: 'get',
    path: '/api/providers',
    access: 'chat',
    summary: 'The configured providers and the active one (for a session, if given)',
    tags: ['chat'],
    query: ProvidersQuery,
    responses: { 200: { description: 'Providers', schema: ProvidersResponse } },
    problems: { 400: ['validation-failed'], ...outage },
  },
  clearSession: {
    method: 'post',
    path: '/api/clear',
    access: 'chat',
    summary: "Deletes a session's stored turns (clearing an unknown session is not an error)",
    tags: ['chat'],
    body: ClearRequest,
    responses: { 200: { description: 'Cleared', schema: ClearResponse } },
    problems: { 400: ['validation-failed', 'malformed-json'], ...jsonBody, ...outage },
  },
  listSessions: {
    method: 'get',
    path: '/api/chat/sessions',
    access: 'chat',
    summary: 'The web conversations among the given session ids: title, turns and last activity',
    description: [
      'The browser keeps the ids of the conversations it has had and asks for them here to show its history list.',
      'Ids that name no web session, or one whose turns were cleared, are left out (no error): the list answers',
      'only for ids the caller already holds, so it discloses nothing else.',
    ].join(' '),
    tags: ['chat'],
    query: SessionListQuery,
    responses: { 200: { description: 'The conversations', schema: SessionListResponse } },
    problems: { 400: ['validation-failed'], ...outage },
  },
  sessionHistory: {
    method: 'get',
    path: '/api/chat/sessions/:sessionId',
    access: 'chat',
    summary:
      "A web conversation's stored turns, newest page first (the UI reloads a conversation after a refresh)",
    description: [
      'Pages go backwards in time: the first page holds the latest `limit` turns (oldest first within the page);',
      '`nextBefore` reads the page before it. Error turns are included with `status: "error"`, interrupted replies',
      'with `status: "interrupted"`.',
    ].join(' '),
    tags: ['chat'],
    params: SessionParams,
    query: SessionHistoryQuery,
    responses: { 200: { description: 'The conversation', schema: SessionHistory } },
    problems: { 400: ['validation-failed'], 404: ['session-not-found'], ...outage },
  },
  openaiChatCompletions: {
    method: 'post',
    path: '/v1/chat/completions',
    access: 'chat',
    summary:
      'OpenAI-compatible chat completions (streaming and not), on the same sessions, limits and providers',
    description: [
      'For existing OpenAI clients: point their base URL at `/v1`. Only the last message (a user message) is taken:',
      'the conversation lives server-side in the session named by `user` (a new session when absent; its id comes',
      'back as `session_id` and in `X-Session-Id`). `model` picks a provider by name, else the default. With',
      '`stream: true` the answer is the same event stream as `/api/chat/stream`. Lenient for OpenAI clients, unlike',
      'every other route: unknown body fields and unknown query parameters are ignored. Errors are problem+json.',
    ].join(' '),
    tags: ['chat'],
    query: OpenAICompletionQuery,
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
      ...jsonBody,
      429: ['rate-limited', 'too-many-streams'],
      502: ['provider-error', 'provider-unavailable'],
      ...outage,
    },
  },
  getWebContext: {
    method: 'get',
    path: '/api/web/context',
    access: 'optional',
    summary: 'The workspace and worker the web chat talks to (for the settings tab)',
    description:
      'Open to anyone, so that the page can tell whether it must pair first; ids are revealed only to an authenticated caller. A paired device sees its own workspace and the worker its chat uses (the configured default worker when it is in that workspace, else the workspace’s oldest worker).',
    tags: ['chat'],
    responses: { 200: { description: 'The web chat’s context', schema: WebContextResponse } },
    problems: { 400: ['validation-failed'], ...outage },
  },
} as const satisfies Record<string, RouteSpec>;
