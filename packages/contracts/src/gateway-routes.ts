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
} from './chat.ts';
import {
  ChannelCreated,
  ChannelIdParams,
  ChannelParams,
  ChannelsResponse,
  ConnectChannelRequest,
  PairingCodeResponse,
  TelegramUpdate,
  WhatsAppNotification,
  WhatsAppVerifyQuery,
} from './channels.ts';
import {
  RunNowResponse,
  SummaryConfig,
  SummaryConfigRequest,
  SummaryRunsQuery,
  SummaryRunsResponse,
} from './daily-summary.ts';
import { operationsRoutes } from './health.ts';
import { defineRoutes } from './routes.ts';
import { text } from './text.ts';
import {
  BindingResponse,
  BindRequest,
  BindResponse,
  CreateWorkerRequest,
  UnbindResponse,
  WebContextResponse,
  Worker,
  WorkerIdParams,
  WorkersResponse,
} from './workers.ts';

// Every endpoint of the agent gateway app: web chat, the OpenAI-compatible endpoint, workers and their
// platform binding, and the operations routes.

export const WORKERS_BASE = '/api/assistant/workers';
export const SUMMARY_CONFIG_BASE = '/api/assistant/email/summary/config';

const rateHeaders = {
  RateLimit: { description: 'IETF draft-8 `RateLimit`: remaining requests and reset of the per-IP window' },
  'RateLimit-Policy': { description: 'IETF draft-8 `RateLimit-Policy`: 30 requests per 60 s per client IP' },
};
const workspaceHeader = [
  {
    name: 'X-Workspace-Id',
    required: true,
    description: 'the workspace whose workers are meant; every worker route is scoped by it',
    schema: { type: 'string', format: 'uuid' },
  },
] as const;
// What every worker route may answer before its own handler runs (flag off, header missing, no workspace).
const workerGate = ['workers-disabled', 'workspace-not-found'] as const;
// the daily summary's routes answer 404 `summary-disabled` while ASSISTANT_DAILY_SUMMARY_ENABLED is off
const summaryGate = [...workerGate, 'summary-disabled'] as const;
const bindingGate = [...workerGate, 'platform-bridge-disabled', 'worker-not-found'] as const;
const jsonBody = { 413: ['payload-too-large'], 415: ['unsupported-media-type'] } as const;
// every route below reads or writes the database
const outage = { 503: ['database-unavailable'] } as const;

export const gatewayRoutes = defineRoutes({
  chat: {
    method: 'post',
    path: '/api/chat',
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
    summary: 'The configured providers and the active one (for a session, if given)',
    tags: ['chat'],
    query: ProvidersQuery,
    responses: { 200: { description: 'Providers', schema: ProvidersResponse } },
    problems: { 400: ['validation-failed'], ...outage },
  },
  clearSession: {
    method: 'post',
    path: '/api/clear',
    summary: "Deletes a session's stored turns (clearing an unknown session is not an error)",
    tags: ['chat'],
    body: ClearRequest,
    responses: { 200: { description: 'Cleared', schema: ClearResponse } },
    problems: { 400: ['validation-failed', 'malformed-json'], ...jsonBody, ...outage },
  },
  listSessions: {
    method: 'get',
    path: '/api/chat/sessions',
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
    summary: 'The workspace and worker the web chat talks to (for the settings tab)',
    tags: ['chat'],
    responses: { 200: { description: 'The web chat’s context', schema: WebContextResponse } },
    problems: { 400: ['validation-failed'], ...outage },
  },
  createWorker: {
    method: 'post',
    path: WORKERS_BASE,
    summary: 'Creates an assistant worker in the workspace',
    tags: ['workers'],
    headers: workspaceHeader,
    body: CreateWorkerRequest,
    responses: {
      201: {
        description: 'The worker',
        schema: Worker,
        headers: { Location: { description: 'the new worker’s URL' } },
      },
    },
    problems: { 400: ['validation-failed', 'malformed-json'], 404: workerGate, ...jsonBody, ...outage },
  },
  listWorkers: {
    method: 'get',
    path: WORKERS_BASE,
    summary: 'The workspace’s workers',
    tags: ['workers'],
    headers: workspaceHeader,
    responses: { 200: { description: 'Workers', schema: WorkersResponse } },
    problems: { 400: ['validation-failed'], 404: workerGate, ...outage },
  },
  getWorker: {
    method: 'get',
    path: `${WORKERS_BASE}/:workerId`,
    summary: 'One worker of the workspace',
    tags: ['workers'],
    headers: workspaceHeader,
    params: WorkerIdParams,
    responses: { 200: { description: 'The worker', schema: Worker } },
    problems: { 400: ['validation-failed'], 404: [...workerGate, 'worker-not-found'], ...outage },
  },
  deleteWorker: {
    method: 'delete',
    path: `${WORKERS_BASE}/:workerId`,
    summary: 'Deletes a worker of the workspace, with its binding',
    tags: ['workers'],
    headers: workspaceHeader,
    params: WorkerIdParams,
    responses: { 204: { description: 'Deleted' } },
    problems: { 400: ['validation-failed'], 404: [...workerGate, 'worker-not-found'], ...outage },
  },
  bindWorker: {
    method: 'post',
    path: `${WORKERS_BASE}/:workerId/platform/bind`,
    summary: 'Binds the worker to a platform tenant with its remote API key, after a smoke test of the key',
    description:
      'Nothing is saved unless `GET /api/assistant-bridge/portfolio` with the key succeeds and names `tenantSlug`; an existing binding stays untouched on failure.',
    tags: ['binding'],
    headers: workspaceHeader,
    params: WorkerIdParams,
    body: BindRequest,
    responses: { 200: { description: 'Bound', schema: BindResponse } },
    problems: {
      400: ['validation-failed', 'malformed-json'],
      404: bindingGate,
      ...jsonBody,
      422: ['skill-pack-required', 'platform-key-rejected', 'platform-bridge-not-enabled', 'tenant-mismatch'],
      502: ['platform-unreachable'],
      ...outage,
    },
  },
  getBinding: {
    method: 'get',
    path: `${WORKERS_BASE}/:workerId/platform`,
    summary: 'The worker’s platform binding (never the key)',
    tags: ['binding'],
    headers: workspaceHeader,
    params: WorkerIdParams,
    responses: { 200: { description: 'The binding', schema: BindingResponse } },
    problems: { 400: ['validation-failed'], 404: [...bindingGate, 'worker-not-bound'], ...outage },
  },
  unbindWorker: {
    method: 'delete',
    path: `${WORKERS_BASE}/:workerId/platform/bind`,
    summary: 'Removes the worker’s platform binding',
    tags: ['binding'],
    headers: workspaceHeader,
    params: WorkerIdParams,
    responses: {
      200: { description: 'Unbound (`unbound: false` when there was no binding)', schema: UnbindResponse },
    },
    problems: { 400: ['validation-failed'], 404: bindingGate, ...outage },
  },
  connectChannel: {
    method: 'post',
    path: `${WORKERS_BASE}/:workerId/channels`,
    summary: 'Connects a Telegram bot or a WhatsApp number to the worker; answers the pairing code',
    description:
      'Telegram: the token is checked with `getMe` first (refused → 422 `channel-token-rejected`; Bot API unreachable → 502 `channel-unreachable`); in webhook mode `setWebhook` points Telegram at `{PUBLIC_BASE_URL}/api/channels/telegram/{channelId}/webhook` with a random `secret_token`. The same bot on another worker → 409 `channel-already-connected`; the same worker connecting it again replaces its channel (a new pairing code; the mode may change). Secrets are stored encrypted (AES-256-GCM) and never returned. The chat that first sends the pairing code (`/start <code>`, or the code alone) becomes the worker’s chat.',
    tags: ['channels'],
    headers: workspaceHeader,
    params: WorkerIdParams,
    body: ConnectChannelRequest,
    responses: { 201: { description: 'Connected, waiting for pairing', schema: ChannelCreated } },
    problems: {
      400: ['validation-failed', 'malformed-json'],
      404: [...workerGate, 'worker-not-found'],
      409: ['channel-already-connected'],
      ...jsonBody,
      422: ['channel-token-rejected', 'public-url-required'],
      502: ['channel-unreachable'],
      ...outage,
    },
  },
  listChannels: {
    method: 'get',
    path: `${WORKERS_BASE}/:workerId/channels`,
    summary: 'The worker’s channels with their status and paired chat (never a secret)',
    tags: ['channels'],
    headers: workspaceHeader,
    params: WorkerIdParams,
    responses: { 200: { description: 'Channels', schema: ChannelsResponse } },
    problems: { 400: ['validation-failed'], 404: [...workerGate, 'worker-not-found'], ...outage },
  },
  deleteChannel: {
    method: 'delete',
    path: `${WORKERS_BASE}/:workerId/channels/:channelId`,
    summary: 'Disconnects a channel (and deletes the Telegram webhook in webhook mode)',
    tags: ['channels'],
    headers: workspaceHeader,
    params: ChannelParams,
    responses: { 204: { description: 'Disconnected' } },
    problems: {
      400: ['validation-failed'],
      404: [...workerGate, 'worker-not-found', 'channel-not-found'],
      ...outage,
    },
  },
  issuePairingCode: {
    method: 'post',
    path: `${WORKERS_BASE}/:workerId/channels/:channelId/pairing-code`,
    summary: 'Issues a new pairing code (the previous one stops working)',
    description: 'Pairing a new chat replaces the paired chat once the code is sent.',
    tags: ['channels'],
    headers: workspaceHeader,
    params: ChannelParams,
    responses: { 200: { description: 'A new code', schema: PairingCodeResponse } },
    problems: {
      400: ['validation-failed'],
      404: [...workerGate, 'worker-not-found', 'channel-not-found'],
      ...outage,
    },
  },
  telegramWebhook: {
    method: 'post',
    path: '/api/channels/telegram/:channelId/webhook',
    summary: 'Telegram’s webhook for a channel in webhook mode',
    description:
      'Checks `X-Telegram-Bot-Api-Secret-Token` in constant time (else 403), answers 200 at once, ignores an `update_id` already handled, and handles each chat’s updates in order.',
    tags: ['channels'],
    headers: [
      {
        name: 'X-Telegram-Bot-Api-Secret-Token',
        required: true,
        description: 'the `secret_token` given to setWebhook',
      },
    ],
    params: ChannelIdParams,
    body: TelegramUpdate,
    responses: { 200: { description: 'Taken in' } },
    problems: {
      400: ['validation-failed', 'malformed-json'],
      403: ['webhook-secret-invalid'],
      404: ['channel-not-found'],
      ...jsonBody,
    },
  },
  whatsappVerify: {
    method: 'get',
    path: '/api/channels/whatsapp/:channelId/webhook',
    summary: 'Meta’s webhook verification: answers `hub.challenge` when `hub.verify_token` matches',
    tags: ['channels'],
    params: ChannelIdParams,
    query: WhatsAppVerifyQuery,
    responses: { 200: { description: 'The challenge, as text', contentType: 'text/plain', schema: text() } },
    problems: { 400: ['validation-failed'], 403: ['webhook-secret-invalid'], 404: ['channel-not-found'] },
  },
  whatsappWebhook: {
    method: 'post',
    path: '/api/channels/whatsapp/:channelId/webhook',
    summary: 'WhatsApp Cloud API notifications for a channel',
    description:
      '`X-Hub-Signature-256` must be the HMAC-SHA256 of the raw body with the app secret (constant-time compare; else 401).',
    tags: ['channels'],
    headers: [{ name: 'X-Hub-Signature-256', required: true, description: '`sha256=<hex>`' }],
    params: ChannelIdParams,
    body: WhatsAppNotification,
    responses: { 200: { description: 'Taken in' } },
    problems: {
      400: ['validation-failed', 'malformed-json'],
      401: ['webhook-signature-invalid'],
      404: ['channel-not-found'],
      ...jsonBody,
    },
  },
  getSummaryConfig: {
    method: 'get',
    path: `${SUMMARY_CONFIG_BASE}/:workerId`,
    summary: 'The worker’s daily-summary configuration, with the next run',
    description:
      'A worker that was never configured answers the defaults, disabled (`0 8 * * *`, `Europe/London`, `web`).',
    tags: ['daily-summary'],
    headers: workspaceHeader,
    params: WorkerIdParams,
    responses: { 200: { description: 'The configuration', schema: SummaryConfig } },
    problems: {
      400: ['validation-failed'],
      404: [...summaryGate, 'worker-not-found'],
      ...outage,
    },
  },
  setSummaryConfig: {
    method: 'post',
    path: `${SUMMARY_CONFIG_BASE}/:workerId`,
    summary: 'Turns the worker’s daily summary on or off, with its schedule, time zone and delivery channel',
    description: [
      'The schedule is a five-field cron expression read in `timezone` (a clock change neither skips nor doubles a',
      'day); a bad one is 400 with the pointer `/summarySchedule`. Enabling needs a bound worker (422',
      '`worker-not-bound`) and, for `telegram` or `whatsapp`, a connected channel of that type (422',
      '`channel-not-connected`). The schedule lives in Redis as one BullMQ job scheduler per enabled worker, so',
      'without Redis the change is refused (503 `redis-unavailable`) rather than saved and not run.',
    ].join(' '),
    tags: ['daily-summary'],
    headers: workspaceHeader,
    params: WorkerIdParams,
    body: SummaryConfigRequest,
    responses: { 200: { description: 'Saved', schema: SummaryConfig } },
    problems: {
      400: ['validation-failed', 'malformed-json'],
      404: [...summaryGate, 'worker-not-found'],
      ...jsonBody,
      422: ['worker-not-bound', 'channel-not-connected'],
      503: ['redis-unavailable', 'database-unavailable'],
    },
  },
  listSummaryRuns: {
    method: 'get',
    path: `${WORKERS_BASE}/:workerId/summary/runs`,
    summary: 'The worker’s daily-summary runs, newest first, with their briefing',
    tags: ['daily-summary'],
    headers: workspaceHeader,
    params: WorkerIdParams,
    query: SummaryRunsQuery,
    responses: { 200: { description: 'Runs', schema: SummaryRunsResponse } },
    problems: { 400: ['validation-failed'], 404: [...summaryGate, 'worker-not-found'], ...outage },
  },
  runSummaryNow: {
    method: 'post',
    path: `${WORKERS_BASE}/:workerId/summary/run-now`,
    summary: 'Queues a daily-summary run now, whatever the schedule',
    description:
      'Answers at once with the run’s id; the run is processed by the queue’s worker like a scheduled one and delivered on the configured channel (`web` when never configured). Follow it with `GET .../summary/runs`.',
    tags: ['daily-summary'],
    headers: workspaceHeader,
    params: WorkerIdParams,
    responses: { 202: { description: 'Queued', schema: RunNowResponse } },
    problems: {
      400: ['validation-failed'],
      404: [...summaryGate, 'worker-not-found'],
      422: ['worker-not-bound'],
      503: ['redis-unavailable', 'database-unavailable'],
    },
  },
  ...operationsRoutes('The database is reachable (Redis is reported but optional)'),
});

export type GatewayRoutes = typeof gatewayRoutes;
