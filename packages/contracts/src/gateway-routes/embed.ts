import { ChatChunk, StreamError } from '../chat.ts';
import {
  EmbedChatRequest,
  EmbedChatResponse,
  EmbedSessionRequest,
  EmbedSessionResponse,
  EmbedSessionsRequest,
  EmbedSessionsResponse,
} from '../embed.ts';
import type { HeaderSpec, RouteSpec } from '../routes.ts';
import { jsonBody, outage } from './shared.ts';

// The API of the embedded chat (docs/embedding.md): what the iframe of /embed calls, and what a host page may call
// directly. Access `embed`: not a device token but the embed key, its origins and a visitor, checked by the embed
// router itself; CORS answers only the origins of live keys.

export const EMBED_API_BASE = '/api/embed';

const embedHeaders: readonly HeaderSpec[] = [
  {
    name: 'X-Embed-Key',
    required: true,
    description: 'the embed key `gwe_…` (public; bound to its origins)',
    schema: { type: 'string' },
  },
  {
    name: 'X-Embed-Visitor-Token',
    required: false,
    description:
      'a visitor token: a JWT (HS256) signed by the host’s server with the key’s visitor secret, with `sub` and an `exp` at most 1 h away',
    schema: { type: 'string' },
  },
  {
    name: 'X-Embed-Visitor',
    required: false,
    description:
      'without a visitor token: an anonymous visitor’s id, 22–64 base64url characters the embed made and keeps (refused by a key that requires a visitor token)',
    schema: { type: 'string', pattern: '^[0-9A-Za-z_-]{22,64}$' },
  },
];

// what the embed check may answer before the route's own handler runs
const embedRefusals = {
  400: ['embed-visitor-invalid'],
  401: [
    'embed-key-invalid',
    'embed-visitor-required',
    'embed-visitor-token-invalid',
    'embed-visitor-token-required',
  ],
  403: ['embed-origin-not-allowed'],
} as const;

const budgets = ['embed-visitor-budget', 'embed-ip-budget', 'embed-workspace-budget', 'rate-limited'];
// the turn's worker as the chat resolves it: the key's worker, in the key's workspace, with workers on
const workerRefusals = ['workers-disabled', 'workspace-not-found', 'worker-not-found'];
// every /api/embed call, preflights included, first counts against one budget per client IP (EMBED_RATE_LIMIT_PER_MIN)
const ipLimit = { 429: ['rate-limited'] } as const;
const budgetHeaders = {
  'Retry-After': { description: 'on a 429: the seconds until the budget that refused has room again' },
};

export const embedRoutes = {
  embedChat: {
    method: 'post',
    path: `${EMBED_API_BASE}/chat`,
    access: 'embed',
    summary: 'One turn of the embedded chat, answered as JSON',
    description: [
      'The key’s worker answers with its platform tools, read-only unless the key allows proposals. Without',
      '`sessionId` a new conversation begins (its id is in the answer); a `sessionId` the visitor does not own is 404.',
      'Counted against the key’s budgets: per IP and key, then per visitor, per minute, and per workspace per UTC',
      'day (the smallest daily budget among the workspace’s live keys). Any /api/embed call also counts against the',
      'gateway’s per-IP embed limit (429 `rate-limited`).',
    ].join(' '),
    tags: ['embedding'],
    headers: embedHeaders,
    body: EmbedChatRequest,
    responses: { 200: { description: 'The reply', schema: EmbedChatResponse, headers: budgetHeaders } },
    problems: {
      ...embedRefusals,
      400: [...embedRefusals[400], 'validation-failed', 'malformed-json'],
      ...jsonBody,
      404: ['session-not-found', ...workerRefusals],
      409: ['turn-in-progress'],
      429: budgets,
      502: ['provider-error', 'provider-unavailable'],
      503: ['provider-rate-limited', 'database-unavailable'],
    },
  },
  embedChatStream: {
    method: 'post',
    path: `${EMBED_API_BASE}/chat/stream`,
    access: 'embed',
    summary: 'One turn of the embedded chat, streamed as server-sent events (read with fetch)',
    description: [
      'The same body as /api/embed/chat; the answer is `text/event-stream` with the events of /api/chat/stream',
      '(ChatChunk, then `data: [DONE]`; an error after the start is a StreamError event).',
    ].join(' '),
    tags: ['embedding'],
    headers: embedHeaders,
    body: EmbedChatRequest,
    responses: {
      200: {
        description: 'An event stream of ChatChunk events, then [DONE]',
        contentType: 'text/event-stream',
        schema: [ChatChunk, StreamError],
      },
    },
    problems: {
      ...embedRefusals,
      400: [...embedRefusals[400], 'validation-failed', 'malformed-json'],
      ...jsonBody,
      404: ['session-not-found', ...workerRefusals],
      409: ['turn-in-progress'],
      429: [...budgets, 'too-many-streams'],
      ...outage,
    },
  },
  embedSession: {
    method: 'post',
    path: `${EMBED_API_BASE}/session`,
    access: 'embed',
    summary: 'The visitor’s conversation (the named one, else the latest): its latest turns',
    description: 'What the embed shows again after a reload. Another visitor’s conversation is 404.',
    tags: ['embedding'],
    headers: embedHeaders,
    body: EmbedSessionRequest,
    responses: { 200: { description: 'The conversation', schema: EmbedSessionResponse } },
    problems: {
      ...embedRefusals,
      400: [...embedRefusals[400], 'validation-failed', 'malformed-json'],
      ...jsonBody,
      404: ['session-not-found'],
      ...ipLimit,
      ...outage,
    },
  },
  embedSessions: {
    method: 'post',
    path: `${EMBED_API_BASE}/sessions`,
    access: 'embed',
    summary: 'The visitor’s conversations, latest first (the embed’s conversation list)',
    tags: ['embedding'],
    headers: embedHeaders,
    body: EmbedSessionsRequest,
    responses: { 200: { description: 'The conversations', schema: EmbedSessionsResponse } },
    problems: {
      ...embedRefusals,
      400: [...embedRefusals[400], 'validation-failed', 'malformed-json'],
      ...jsonBody,
      ...ipLimit,
      ...outage,
    },
  },
} as const satisfies Record<string, RouteSpec>;
