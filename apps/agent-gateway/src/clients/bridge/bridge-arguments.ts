import { type bridgeRoutes, templatePath } from '@pa/contracts';
import { label } from './bridge-answers.ts';
import { BridgeError } from './bridge-errors.ts';

// What a call sends, checked before it is sent: the bridge's paths, argument bounds and bodies all come from its
// route table (bridgeRoutes), so what the bridge would refuse is refused here without a round trip.

/** The bridge reads this client makes: entries of the route table, GET only. */
export type BridgeRead = (typeof bridgeRoutes)[
  | 'getPortfolio'
  | 'getProperty'
  | 'getPropertyCompliance'
  | 'listPortfolioCompliance'
  | 'listTenantCopies'
  | 'listDeals'
  | 'listEmailActivity'
  | 'listMailboxes'
  | 'listProposals'
  | 'getProposal'
  | 'getKnowledgeChanges'];
/** The proposal submissions: POST with a body and an Idempotency-Key, answered 201. */
export type BridgePropose = (typeof bridgeRoutes)[
  'proposeDeal' | 'proposeComplianceUpdate' | 'proposeFinancialLog'];
export type Values = Record<string, unknown>;

/**
 * The arguments as the strings that will be sent, checked by the route's own path and query schemas: what the
 * bridge would refuse is refused here, before sending (`invalid-request`, status null).
 */
export function checkArguments(
  route: BridgeRead,
  params: Values,
  query: Values,
): { params: Record<string, string>; query: Record<string, string> } {
  // In the order of the route's schema, so that one question is always the same URL (caches, logs).
  const order = 'query' in route ? Object.keys(route.query.shape) : [];
  const strings = (values: Values) =>
    Object.fromEntries(
      Object.entries(values)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => order.indexOf(a) - order.indexOf(b))
        // a list (the compliance read's statuses) travels as one comma-separated value
        .map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : String(v)]),
    );
  const sent = { params: strings(params), query: strings(query) };
  const schemas = [
    'params' in route ? route.params.safeParse(sent.params) : null,
    'query' in route ? route.query.safeParse(sent.query) : null,
  ];
  const issues = schemas.flatMap((r) => (r && !r.success ? r.error.issues : []));
  if (issues.length > 0) {
    const detail = issues.map((i) => `${i.path.map(String).join('.')} ${i.message}`).join('; ');
    const at = { method: 'GET', path: templatePath(route.path) };
    throw new BridgeError('invalid-request', `Platform bridge ${label(at)}: ${detail}.`, { ...at, detail });
  }
  return sent;
}

/** A proposal's body checked by its route's own schema; the parsed body (defaults filled in) is what is sent. */
export function checkBody(route: BridgePropose, body: unknown): unknown {
  const parsed = route.body.safeParse(body);
  if (!parsed.success) {
    const detail = parsed.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.map(String).join('.') || 'body'} ${i.message}`)
      .join('; ');
    const at = { method: 'POST', path: route.path };
    throw new BridgeError('invalid-request', `Platform bridge ${label(at)}: ${detail}.`, { ...at, detail });
  }
  return parsed.data;
}
