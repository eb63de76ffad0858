import { z } from 'zod';
import { EMBED_KEY } from '../access.ts';
import {
  EMBED_VISITOR_SECRET,
  EmbedKeyCreateRequest,
  EmbedKeyParams,
  EmbedKeyUpdateRequest,
  EmbedKeyView,
} from '../embed.ts';
import type { RouteSpec } from '../routes.ts';
import { text } from '../text.ts';
import { WorkerIdParams } from '../workers.ts';
import { jsonBody, outage, workerGate, WORKERS_BASE, workspaceHeader } from './shared.ts';

// The embed keys of a worker (docs/embedding.md): made, listed and revoked by whoever may manage the gateway (the
// `admin` scope, or the operator), and edited in place. The key and the visitor secret are in the creating answer only.

export const EmbedKeysResponse = z.strictObject({
  embedKeys: z.array(EmbedKeyView).describe('newest first, revoked keys included'),
});

export const EmbedKeyCreated = z.strictObject({
  key: EmbedKeyView,
  embedKey: text()
    .regex(EMBED_KEY)
    .describe('`gwe_…`, shown once: it goes in the host page’s HTML (public, bound to the origins)'),
  visitorSecret: text()
    .regex(EMBED_VISITOR_SECRET)
    .describe(
      '`gwv_…`, shown once: the host’s server signs visitor tokens (HS256) with it; never put it in a page',
    ),
  snippet: text().describe('the HTML to paste into the host page: the loader script with this key'),
});

export type EmbedKeysResponse = z.infer<typeof EmbedKeysResponse>;
export type EmbedKeyCreated = z.infer<typeof EmbedKeyCreated>;

const EMBED_KEYS = `${WORKERS_BASE}/:workerId/embed-keys`;
const adminOnly = { 401: ['unauthorized'], 403: ['insufficient-scope', 'workspace-forbidden'] } as const;

export const embedKeyRoutes = {
  listEmbedKeys: {
    method: 'get',
    path: EMBED_KEYS,
    access: 'admin',
    summary: 'The worker’s embed keys with their origins, toolset and budgets (never a key or a secret)',
    tags: ['embedding'],
    headers: workspaceHeader,
    params: WorkerIdParams,
    responses: { 200: { description: 'Embed keys', schema: EmbedKeysResponse } },
    problems: {
      400: ['validation-failed'],
      ...adminOnly,
      404: [...workerGate, 'worker-not-found'],
      ...outage,
    },
  },
  createEmbedKey: {
    method: 'post',
    path: EMBED_KEYS,
    access: 'admin',
    summary: 'Makes an embed key for the worker, bound to the origins that may embed its chat',
    description: [
      'Each origin is exact, as a browser sends it: `https://host[:port]` with no path or trailing slash;',
      '`http://` only for loopback hosts (localhost, 127.x.x.x, [::1]); never `*` (400 `validation-failed`, the',
      'offending origin named in `errors`). 1–10 origins. The key is read-only unless `allowProposals`: then the',
      'worker’s proposal tools are offered too (they still need `PLATFORM_BRIDGE_WRITES` and a key with',
      '`bridge:propose`). Budgets default to 10 messages per visitor per minute, 30 per IP address per minute and',
      '2000 per workspace per UTC day; the daily budget is counted once for the whole workspace, and the smallest',
      '`workspacePerDay` among its live keys is the one that applies. With `requireVisitorToken` the key refuses',
      'anonymous visitors: every call of the embed API needs a visitor token from the host’s server (401',
      '`embed-visitor-token-required` without one). It defaults to `allowProposals`: a key that can propose always',
      'requires a visitor token, since the key is public and an `Origin` can be forged outside a browser, so',
      '`allowProposals: true` with `requireVisitorToken: false` is refused (400 `embed-proposals-need-token`).',
      'A worker holds at most 20 live keys (409 `embed-key-limit`). The answer',
      'carries the key, the visitor secret and the snippet once (`Cache-Control: no-store`); the gateway keeps',
      'only the key’s hash and the secret encrypted.',
    ].join(' '),
    tags: ['embedding'],
    headers: workspaceHeader,
    params: WorkerIdParams,
    body: EmbedKeyCreateRequest,
    responses: {
      201: { description: 'The key, its secret and the snippet, shown once', schema: EmbedKeyCreated },
    },
    problems: {
      400: ['validation-failed', 'malformed-json', 'embed-proposals-need-token'],
      ...adminOnly,
      404: [...workerGate, 'worker-not-found'],
      409: ['embed-key-limit'],
      ...jsonBody,
      ...outage,
    },
  },
  updateEmbedKey: {
    method: 'patch',
    path: `${EMBED_KEYS}/:embedKeyId`,
    access: 'admin',
    summary:
      'Edits a live embed key’s name, origins, toolset, visitors or budgets; its snippet stays the same',
    description: [
      'Every field of the create body, each optional, with the same rules and limits; at least one (an empty body',
      'is 400 `validation-failed`). A field left out keeps its value; `origins` replaces the whole list (1–10 exact',
      'origins); `budgets` changes only the budgets it names. The result must still keep the proposal rule: a key',
      'that can propose must require a visitor token (400 `embed-proposals-need-token`, nothing changed). The key',
      'string and the visitor secret do not change and are not in the answer, so the host page’s snippet and its',
      'server’s visitor tokens keep working. The change holds at once on this instance and on the others within 5',
      'seconds, as a revocation does. An unknown key, or one of another worker, is 404 `embed-key-not-found`; a',
      'revoked key cannot be edited (409 `embed-key-revoked`).',
    ].join(' '),
    tags: ['embedding'],
    headers: workspaceHeader,
    params: EmbedKeyParams,
    body: EmbedKeyUpdateRequest,
    responses: { 200: { description: 'The key as edited', schema: EmbedKeyView } },
    problems: {
      400: ['validation-failed', 'malformed-json', 'embed-proposals-need-token'],
      ...adminOnly,
      404: [...workerGate, 'worker-not-found', 'embed-key-not-found'],
      409: ['embed-key-revoked'],
      ...jsonBody,
      ...outage,
    },
  },
  revokeEmbedKey: {
    method: 'delete',
    path: `${EMBED_KEYS}/:embedKeyId`,
    access: 'admin',
    summary:
      'Revokes an embed key at once: its panels stop answering within seconds (revoking again changes nothing)',
    tags: ['embedding'],
    headers: workspaceHeader,
    params: EmbedKeyParams,
    responses: { 200: { description: 'The revoked key', schema: EmbedKeyView } },
    problems: {
      400: ['validation-failed'],
      ...adminOnly,
      404: [...workerGate, 'worker-not-found', 'embed-key-not-found'],
      ...outage,
    },
  },
} as const satisfies Record<string, RouteSpec>;
