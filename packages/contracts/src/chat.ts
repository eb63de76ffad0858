import { z } from 'zod';
import { intString } from './params.ts';
import { intField, optionalField, queryFields } from './query-fields.ts';
import { text } from './text.ts';

// The agent gateway's web chat API. JSON is camelCase (`sessionId`); stream chunks follow the
// OpenAI `chat.completion.chunk` shape so that existing SSE clients understand them.

export const SessionId = text().regex(
  /^[A-Za-z0-9._:-]{1,128}$/,
  'must be 1–128 characters of A–Z, a–z, 0–9, `.`, `_`, `:` or `-`',
);
export const ProviderName = text().regex(/^[a-z0-9-]{1,32}$/, 'is not a provider name');
export const RequestKey = text().regex(
  /^[A-Za-z0-9._:-]{1,128}$/,
  'must be 1–128 characters of A–Z, a–z, 0–9, `.`, `_`, `:` or `-`',
);
export const ChatMessageText = text()
  .min(1, 'must not be empty')
  .max(8000, 'must be at most 8000 characters')
  .refine((s) => s.trim().length > 0, 'must not be blank');

export const ChatRequest = z.strictObject({
  message: ChatMessageText,
  sessionId: SessionId.optional().describe('external session key; the server issues one when absent'),
  provider: ProviderName.optional().describe('switches the session to this provider from this turn on'),
  workerId: z.uuid().optional().describe('the assistant worker to talk to; else the default worker'),
});

export const ChatResponse = z.strictObject({
  reply: text(),
  sessionId: SessionId,
  provider: text().describe('the provider that answered'),
});

export const ChatStreamQuery = z.strictObject({
  message: ChatMessageText,
  sessionId: SessionId.optional(),
  provider: ProviderName.optional(),
  workerId: z.uuid().optional(),
  requestId: RequestKey.optional().describe(
    'client key of this turn; a repeated requestId (a browser reconnect) replays the stored reply instead of running the turn again',
  ),
});

export const ProvidersQuery = z.strictObject({ sessionId: SessionId.optional() });
export const ProvidersResponse = z.strictObject({
  providers: z.array(text()),
  active: text().describe('the session’s provider, else the default'),
});

export const ClearRequest = z.strictObject({ sessionId: SessionId });
export const ClearResponse = z.strictObject({
  sessionId: SessionId,
  cleared: z.literal(true),
  turnsDeleted: z.number().int().min(0),
});

export const ChatChunk = z.strictObject({
  id: text(),
  object: z.literal('chat.completion.chunk'),
  created: z.number().int(),
  model: text(),
  session_id: SessionId.optional().describe('on the first chunk: the session the turn belongs to'),
  choices: z
    .array(
      z.strictObject({
        index: z.literal(0),
        delta: z.strictObject({ role: z.literal('assistant').optional(), content: text().optional() }),
        finish_reason: z.enum(['stop']).nullable(),
      }),
    )
    .length(1),
});

export const StreamError = z.strictObject({
  error: z.strictObject({ message: text(), type: text(), code: text() }),
});

export type ChatRequest = z.infer<typeof ChatRequest>;
export type ChatResponse = z.infer<typeof ChatResponse>;
export type ChatStreamQuery = z.infer<typeof ChatStreamQuery>;
export type ProvidersResponse = z.infer<typeof ProvidersResponse>;
export type ClearResponse = z.infer<typeof ClearResponse>;
export type ChatChunk = z.infer<typeof ChatChunk>;
export type StreamError = z.infer<typeof StreamError>;

// ---- OpenAI-compatible endpoint -----------------------------------------------------------------------------

const OpenAIContentPart = z.looseObject({ type: text(), text: text().optional() });

// Loose on purpose: OpenAI clients send parameters this gateway does not use (temperature, top_p, ...).
export const OpenAICompletionRequest = z.looseObject({
  model: text()
    .max(64)
    .optional()
    .describe('a provider name (`local`, `openai`, `anthropic`); else the default'),
  messages: z
    .array(
      z.looseObject({
        role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
        content: z
          .union([text(), z.array(OpenAIContentPart)])
          .nullable()
          .optional(),
      }),
    )
    .min(1)
    .max(200),
  stream: z.boolean().optional(),
  user: SessionId.optional().describe(
    'the session to continue (the same sessions as /api/chat); else a new one',
  ),
});

// Unlike every other route, query parameters are tolerated and ignored: OpenAI SDKs and proxies add their own
// (e.g. Azure's `api-version`).
export const OpenAICompletionQuery = z.looseObject({});

export const OpenAICompletion = z.strictObject({
  id: text(),
  object: z.literal('chat.completion'),
  created: z.number().int(),
  model: text(),
  session_id: SessionId,
  choices: z
    .array(
      z.strictObject({
        index: z.literal(0),
        message: z.strictObject({ role: z.literal('assistant'), content: text() }),
        finish_reason: z.literal('stop'),
      }),
    )
    .length(1),
});
export type OpenAICompletionRequest = z.infer<typeof OpenAICompletionRequest>;
export type OpenAICompletion = z.infer<typeof OpenAICompletion>;

// ---- conversation history (the web UI reloads a conversation from the server's memory) ----------------------

export const SESSION_HISTORY_LIMIT = { min: 1, max: 100, default: 50 } as const;
export const SESSION_LIST_MAX_IDS = 50;

export const SessionParams = z.strictObject({ sessionId: SessionId });

const historyFields = queryFields({
  limit: intField({ ...SESSION_HISTORY_LIMIT, description: 'turns per page' }),
  before: optionalField(
    text().regex(/^\d{1,18}$/, 'is not a cursor returned by this API'),
    '`nextBefore` of the previous page: the page ends just before that turn; omit for the latest turns',
  ),
});
export const SessionHistoryQuery = historyFields.query;

export const HistoryTurn = z.strictObject({
  id: text().describe('the turn’s position in the session; increases with every turn'),
  role: z.enum(['user', 'assistant']),
  content: text(),
  status: z.enum(['complete', 'interrupted', 'error']),
  createdAt: z.iso.datetime({ offset: true }),
});

export const SessionHistory = z.strictObject({
  sessionId: SessionId,
  title: text().describe('the first question of the conversation, shortened to 80 characters'),
  createdAt: z.iso.datetime({ offset: true }),
  lastActiveAt: z.iso.datetime({ offset: true }),
  turns: z.array(HistoryTurn).describe('oldest first: the latest `limit` turns before `before`'),
  nextBefore: text()
    .nullable()
    .describe(
      'pass as `before` to read the turns before this page; null when this page reaches the first turn',
    ),
});

export const SESSION_LIST_LIMIT = { min: 1, max: 50, default: 20 } as const;
/** The longest search text: enough for a phrase, short enough that a search stays cheap. */
export const SESSION_SEARCH_MAX = 100;
/** The longest title a conversation gets (the same as the titles taken from a first question). */
export const SESSION_TITLE_MAX = 80;

const SessionIdList = text()
  .regex(/^[A-Za-z0-9._:,-]{1,7000}$/, 'must be session ids separated by commas')
  .refine(
    (s) => s.split(',').length <= SESSION_LIST_MAX_IDS,
    `must name at most ${SESSION_LIST_MAX_IDS} sessions`,
  )
  .refine(
    (s) => s.split(',').every((id) => SessionId.safeParse(id).success),
    'must be session ids separated by commas',
  );

// A list cursor: the last conversation of the previous page, as its last activity (epoch milliseconds) and id.
export const SESSION_CURSOR = /^(\d{1,15})_([A-Za-z0-9._:-]{1,128})$/;

export const SessionListQuery = z
  .strictObject({
    ids: SessionIdList.optional().describe(
      `up to ${SESSION_LIST_MAX_IDS} web session ids, comma-separated (the ones this browser has used): answers only those, and takes no other parameter`,
    ),
    q: text()
      .max(SESSION_SEARCH_MAX, `must be at most ${SESSION_SEARCH_MAX} characters`)
      .refine((s) => s.trim().length > 0, 'must not be blank')
      .optional()
      .describe('only the conversations whose title or any turn contains this text (case-insensitive)'),
    limit: intString(SESSION_LIST_LIMIT.min, SESSION_LIST_LIMIT.max)
      .optional()
      .describe(
        `conversations per page, ${SESSION_LIST_LIMIT.min}–${SESSION_LIST_LIMIT.max} (default ${SESSION_LIST_LIMIT.default})`,
      ),
    before: text()
      .regex(SESSION_CURSOR, 'is not a cursor returned by this API')
      .optional()
      .describe('`nextBefore` of the previous page; omit for the most recent conversations'),
  })
  .superRefine((q, ctx) => {
    if (q.ids === undefined) return;
    for (const key of ['q', 'limit', 'before'] as const) {
      if (q[key] !== undefined)
        ctx.addIssue({ code: 'custom', path: [key], message: 'cannot be combined with ids' });
    }
  });

export const SessionSummary = z.strictObject({
  sessionId: SessionId,
  title: text().describe('the title given to it, else its first question shortened to 80 characters'),
  createdAt: z.iso.datetime({ offset: true }),
  lastActiveAt: z.iso.datetime({ offset: true }),
  turnCount: z.number().int().min(0),
});

export const SessionListResponse = z.strictObject({
  sessions: z
    .array(SessionSummary)
    .describe('the conversations that exist and hold at least one turn, most recently active first'),
  nextBefore: text()
    .nullable()
    .describe('pass as `before` for the next page; null on the last page (and always with `ids`)'),
});

export const SessionTitle = text()
  .transform((s) => s.replace(/\s+/g, ' ').trim())
  .pipe(
    text()
      .min(1, 'must not be blank')
      .refine(
        (s) => Array.from(s).length <= SESSION_TITLE_MAX,
        `must be at most ${SESSION_TITLE_MAX} characters`,
      ),
  );

export const SessionRenameRequest = z.strictObject({
  title: SessionTitle.nullable().describe(
    `the new title, up to ${SESSION_TITLE_MAX} characters on one line (whitespace is collapsed); null gives the conversation its first question back as its title`,
  ),
});

export type HistoryTurn = z.infer<typeof HistoryTurn>;
export type SessionHistory = z.infer<typeof SessionHistory>;
export type SessionSummary = z.infer<typeof SessionSummary>;
export type SessionRenameRequest = z.infer<typeof SessionRenameRequest>;
