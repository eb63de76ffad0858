import { z } from 'zod';
import { ChatMessageText, HistoryTurn, RequestKey, SessionId } from './chat.ts';
import { text } from './text.ts';

// Embedding a worker's chat in another site (docs/embedding.md): embed keys bound to exact origins, and the API the
// embedded iframe calls. camelCase like every gateway API. The key itself is public (it sits in the host page's
// HTML); the visitor secret signs the host's visitor tokens and is shown once.

/** `gwv_` + 32 random bytes as base64url. */
export const EMBED_VISITOR_SECRET = /^gwv_[0-9A-Za-z_-]{43}$/;
/** An anonymous visitor's id, made by the iframe and kept in its localStorage: ≥ 22 base64url characters. */
export const EMBED_ANONYMOUS_VISITOR = /^[0-9A-Za-z_-]{22,64}$/;

export const EMBED_KEY_LIMITS = {
  labelMax: 80,
  originsMax: 10,
  /** live (not revoked) keys per worker */
  keysPerWorker: 20,
  visitorPerMinute: { min: 1, max: 600, default: 10 },
  ipPerMinute: { min: 1, max: 6000, default: 30 },
  workspacePerDay: { min: 1, max: 1_000_000, default: 2000 },
  /** the longest a visitor token may live (exp − iat, and exp − now) */
  visitorTokenMaxSeconds: 3600,
  visitorSubMax: 128,
  visitorNameMax: 100,
} as const;

const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/**
 * Why `value` is not an origin an embed key may name, or null when it is one: an exact origin as the browser sends
 * it (`new URL(o).origin === o`: scheme, host and port only, no path, no trailing slash, lower case), https, or http
 * for loopback hosts only; never `*` or `null`.
 */
export function embedOriginProblem(value: string): string | null {
  if (value === '*' || value === 'null') return 'must be an exact origin, not a wildcard';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an origin such as https://www.example.com';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must start with https://';
  if (url.origin !== value) {
    return `must be an exact origin (scheme, host and optional port, no path or trailing slash): ${url.origin}`;
  }
  if (url.hostname.includes('*')) return 'must be an exact origin, not a wildcard';
  if (url.protocol === 'http:' && !LOOPBACK_HOST.test(url.hostname)) {
    return 'must use https:// (http:// only for localhost and 127.0.0.1)';
  }
  return null;
}

export const EmbedOrigin = text()
  .max(300, 'must be at most 300 characters')
  .superRefine((value, ctx) => {
    const problem = embedOriginProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

const budget = (limits: { min: number; max: number }, what: string) =>
  z
    .number()
    .int('must be a whole number')
    .min(limits.min, `must be at least ${limits.min}`)
    .max(limits.max, `must be at most ${limits.max}`)
    .describe(what);

export const EmbedBudgets = z.strictObject({
  visitorPerMinute: budget(EMBED_KEY_LIMITS.visitorPerMinute, 'messages per visitor per minute'),
  ipPerMinute: budget(EMBED_KEY_LIMITS.ipPerMinute, 'messages per IP address (and key) per minute'),
  workspacePerDay: budget(
    EMBED_KEY_LIMITS.workspacePerDay,
    'messages through all embed keys of the workspace per UTC day, counted once for the workspace: the smallest value among its live keys applies to all of them',
  ),
});

export const EmbedKeyCreateRequest = z.strictObject({
  label: text()
    .trim()
    .max(EMBED_KEY_LIMITS.labelMax, `must be at most ${EMBED_KEY_LIMITS.labelMax} characters`)
    .optional()
    .describe('a note for the admin, e.g. "Property pages"'),
  origins: z
    .array(EmbedOrigin)
    .min(1, 'must name at least one origin')
    .max(EMBED_KEY_LIMITS.originsMax, `must name at most ${EMBED_KEY_LIMITS.originsMax} origins`)
    .refine((o) => new Set(o).size === o.length, 'must not repeat an origin')
    .describe('the exact origins of the pages that may embed the chat, e.g. ["https://app.example.com"]'),
  allowProposals: z
    .boolean()
    .optional()
    .describe(
      'let the embedded assistant propose changes (default false: read-only); such a key requires a visitor token',
    ),
  requireVisitorToken: z
    .boolean()
    .optional()
    .describe(
      'refuse anonymous visitors: every call needs a visitor token signed by the host’s server. Defaults to allowProposals; false with allowProposals true is refused (400 embed-proposals-need-token)',
    ),
  budgets: EmbedBudgets.partial().optional().describe('defaults: 10 per visitor, 30 per IP, 2000 per day'),
});

// Editing a key (PATCH): the fields and limits of create, each optional, at least one of them. A field left out
// keeps its value; `origins` replaces the whole list; `budgets` changes only the budgets it names.
export const EmbedKeyUpdateRequest = EmbedKeyCreateRequest.partial().refine(
  // an empty `budgets` changes nothing either
  (patch) =>
    Object.entries(patch).some(
      ([k, v]) => v !== undefined && !(k === 'budgets' && Object.keys(v).length === 0),
    ),
  'must change at least one setting: label, origins, allowProposals, requireVisitorToken or budgets',
);

export const EmbedKeyView = z.strictObject({
  id: z.uuid(),
  workspaceId: z.uuid(),
  workerId: z.uuid(),
  label: text(),
  keyPrefix: text().describe('the first characters of the key, for recognising it'),
  origins: z.array(text()),
  allowProposals: z.boolean(),
  requireVisitorToken: z.boolean().describe('anonymous visitors are refused: a visitor token is required'),
  budgets: EmbedBudgets,
  createdAt: z.iso.datetime(),
  lastUsedAt: z.iso.datetime().nullable(),
  revokedAt: z.iso.datetime().nullable(),
});

export const EmbedKeyParams = z.strictObject({
  workerId: z.uuid('must be a worker UUID'),
  embedKeyId: z.uuid('must be an embed key UUID'),
});

// ---- the embedded chat's API (/api/embed/*): every call carries X-Embed-Key and a visitor ----------------------

export const EmbedChatRequest = z.strictObject({
  message: ChatMessageText,
  sessionId: SessionId.optional().describe(
    'the visitor’s conversation to continue; the server issues one when absent',
  ),
  requestId: RequestKey.optional().describe(
    'client key of this turn; a repeated requestId replays the stored reply',
  ),
});

export const EmbedChatResponse = z.strictObject({
  reply: text(),
  sessionId: SessionId,
});

export const EmbedSessionRequest = z.strictObject({
  sessionId: SessionId.optional().describe('the conversation to read; else the visitor’s latest'),
});

export const EmbedSessionResponse = z.strictObject({
  sessionId: SessionId.nullable().describe('null when the visitor has no conversation yet'),
  turns: z.array(HistoryTurn).describe('oldest first, the latest 50 turns'),
});

export const EmbedSessionsRequest = z.strictObject({});

export const EmbedSessionSummary = z.strictObject({
  sessionId: SessionId,
  title: text(),
  lastActiveAt: z.iso.datetime({ offset: true }),
});

export const EmbedSessionsResponse = z.strictObject({
  sessions: z.array(EmbedSessionSummary).describe('the visitor’s conversations, latest first (at most 20)'),
});

export type EmbedBudgets = z.infer<typeof EmbedBudgets>;
export type EmbedKeyCreateRequest = z.infer<typeof EmbedKeyCreateRequest>;
export type EmbedKeyUpdateRequest = z.infer<typeof EmbedKeyUpdateRequest>;
export type EmbedKeyView = z.infer<typeof EmbedKeyView>;
export type EmbedChatRequest = z.infer<typeof EmbedChatRequest>;
export type EmbedChatResponse = z.infer<typeof EmbedChatResponse>;
export type EmbedSessionRequest = z.infer<typeof EmbedSessionRequest>;
export type EmbedSessionResponse = z.infer<typeof EmbedSessionResponse>;
export type EmbedSessionsResponse = z.infer<typeof EmbedSessionsResponse>;
