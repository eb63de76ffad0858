import {
  ComplianceResponse,
  DealsQuery,
  DealsResponse,
  EmailActivityQuery,
  EmailActivityResponse,
  MailboxesResponse,
  PortfolioQuery,
  PortfolioResponse,
  Property,
  PropertyIdParams,
} from './bridge.ts';
import { operationsRoutes } from './health.ts';
import { defineRoutes } from './routes.ts';

// Every endpoint of the platform bridge app: the read-only bridge under BRIDGE_BASE and the operations routes.

export const BRIDGE_BASE = '/api/assistant-bridge';

const bearer = [{ remoteApiKey: [] }];
const rateHeaders = {
  RateLimit: { description: 'IETF draft-8 `RateLimit`: remaining quota and reset of the per-key window' },
  'RateLimit-Policy': { description: 'IETF draft-8 `RateLimit-Policy`: the per-key limit and window' },
};
// What every bridge path may answer before its own handler runs: authentication, the tenant flag, the budget.
// (and the key is looked up in the database: 503 while it cannot be reached)
const gate = {
  401: ['invalid-api-key'],
  403: ['insufficient-scope'],
  429: ['rate-limited'],
  503: ['database-unavailable'],
} as const;
const notEnabled = ['bridge-not-enabled'] as const;

export const bridgeRoutes = defineRoutes({
  getPortfolio: {
    method: 'get',
    path: `${BRIDGE_BASE}/portfolio`,
    summary: 'Portfolio summary and one page of properties',
    description:
      'Keyset pagination by property id: pass `next_cursor` back as `cursor` until it is null. The summary always covers the whole portfolio.',
    tags: ['bridge'],
    security: bearer,
    query: PortfolioQuery,
    responses: { 200: { description: 'The portfolio', schema: PortfolioResponse, headers: rateHeaders } },
    problems: { 400: ['validation-failed'], ...gate, 404: notEnabled },
  },
  getProperty: {
    method: 'get',
    path: `${BRIDGE_BASE}/properties/:id`,
    summary: 'One property, with its current tenancy and compliance summary',
    description: 'Carries an `ETag`; send it back in `If-None-Match` to get 304 when nothing changed.',
    tags: ['bridge'],
    security: bearer,
    params: PropertyIdParams,
    responses: {
      200: {
        description: 'The property',
        schema: Property,
        headers: { ETag: { description: 'entity tag' } },
      },
      304: { description: 'Not modified since the ETag in If-None-Match' },
    },
    problems: { 400: ['validation-failed'], ...gate, 404: ['property-not-found', ...notEnabled] },
  },
  getPropertyCompliance: {
    method: 'get',
    path: `${BRIDGE_BASE}/properties/:id/compliance`,
    summary: "A property's compliance items with computed status, and the required types with no item",
    description:
      'Statuses are judged on today’s date in Europe/London: `missing`, then `expired`, then `expiring_soon` (within the type’s window or with a remedial fix open), else `valid`. The property’s status is its worst item.',
    tags: ['bridge'],
    security: bearer,
    params: PropertyIdParams,
    responses: { 200: { description: 'Compliance', schema: ComplianceResponse } },
    problems: { 400: ['validation-failed'], ...gate, 404: ['property-not-found', ...notEnabled] },
  },
  listDeals: {
    method: 'get',
    path: `${BRIDGE_BASE}/deals`,
    summary: 'Deals, open ones by default',
    tags: ['bridge'],
    security: bearer,
    query: DealsQuery,
    responses: { 200: { description: 'Deals', schema: DealsResponse } },
    problems: { 400: ['validation-failed'], ...gate, 404: notEnabled },
  },
  listEmailActivity: {
    method: 'get',
    path: `${BRIDGE_BASE}/email-activity`,
    summary: 'Email activity of the last `hours` hours, newest first (snippets only, never full bodies)',
    tags: ['bridge'],
    security: bearer,
    query: EmailActivityQuery,
    responses: { 200: { description: 'Email activity', schema: EmailActivityResponse } },
    problems: { 400: ['validation-failed'], ...gate, 404: notEnabled },
  },
  listMailboxes: {
    method: 'get',
    path: `${BRIDGE_BASE}/mailboxes`,
    summary: 'Mailboxes the platform polls (the agent platform must not connect these itself)',
    tags: ['bridge'],
    security: bearer,
    responses: { 200: { description: 'Mailboxes', schema: MailboxesResponse } },
    problems: { 400: ['validation-failed'], ...gate, 404: notEnabled },
  },
  ...operationsRoutes('The database is reachable'),
});

export type BridgeRoutes = typeof bridgeRoutes;
