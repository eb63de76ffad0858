import { z } from 'zod';
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
} from '../channels.ts';
import type { RouteSpec } from '../routes.ts';
import { text } from '../text.ts';
import { WorkerIdParams } from '../workers.ts';
import { jsonBody, outage, workerGate, WORKERS_BASE, workspaceHeader } from './shared.ts';

// A worker's Telegram and WhatsApp channels, and the webhooks those services call.

// The body the Telegram webhook answers once an update is taken in (Telegram itself reads only the status).
const TelegramWebhookAck = z.strictObject({ ok: z.literal(true) });

export const channelRoutes = {
  connectChannel: {
    method: 'post',
    path: `${WORKERS_BASE}/:workerId/channels`,
    access: 'workers:write',
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
    access: 'chat',
    // the settings page polls it while a channel waits for its pairing code
    logQuietly: true,
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
    access: 'workers:write',
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
    access: 'workers:write',
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
    access: 'signed',
    summary: 'Telegram’s webhook for a channel in webhook mode',
    description:
      'Checks `X-Telegram-Bot-Api-Secret-Token` in constant time (else 403), records the update with its message and answers 200 (before the chat turn runs: a 503 when it cannot be recorded, so that Telegram delivers it again), ignores an `update_id` already taken in, and handles each chat’s updates in order. A message whose process stops before answering it is answered by another process once that one’s claim on it has run out (2 minutes), or, after an hour or three attempts, the chat is asked to send it again.',
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
    responses: { 200: { description: 'Taken in', schema: TelegramWebhookAck } },
    problems: {
      400: ['validation-failed', 'malformed-json'],
      403: ['webhook-secret-invalid'],
      404: ['channel-not-found'],
      ...jsonBody,
      ...outage,
    },
  },
  whatsappVerify: {
    method: 'get',
    path: '/api/channels/whatsapp/:channelId/webhook',
    access: 'signed',
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
    access: 'signed',
    summary: 'WhatsApp Cloud API notifications for a channel',
    description:
      '`X-Hub-Signature-256` must be the HMAC-SHA256 of the raw body with the app secret (constant-time compare; else 401). Each text message is recorded before the 200 (a 503 when it cannot be, so that Meta delivers it again) and handled once per message id, as the Telegram webhook’s are.',
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
      ...outage,
    },
  },
} as const satisfies Record<string, RouteSpec>;
