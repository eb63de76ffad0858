import { BRIDGE_BASE, bridgeRoutes, type ProposalKind } from '@pa/contracts';
import { FeatureDisabled, jsonBody, registerRoute, requireJson } from '@pa/http-kit';
import { type Request, type RequestHandler, type Response, Router } from 'express';
import { parseIdempotencyKey } from '../../lib/idempotency-key.ts';
import { requireScope } from '../auth/authenticate.ts';
import { proposalLocation } from './proposal-mapper.ts';
import type { ProposalBody, ProposalsService, SubmitAnswer } from './proposals-service.ts';

// The bridge's routes of this feature, each behind its scope; mounted at BRIDGE_BASE behind the bridge's guard
// (bridge-router.ts).
export function createProposalsRouter(deps: { proposals: ProposalsService }): Router {
  const { proposals } = deps;
  const router = Router();

  // The writes flag comes before the scope: to a tenant without writes the endpoints are not there at all.
  const writesEnabled: RequestHandler = (req, _res, next) => {
    if (!req.auth!.flags.has('assistant_bridge_writes')) {
      throw new FeatureDisabled('writes-not-enabled', 'Proposals are not enabled for this tenant.');
    }
    next();
  };
  const read = { mountedAt: BRIDGE_BASE, before: [requireScope('bridge:read')] };
  const propose = { mountedAt: BRIDGE_BASE, before: [writesEnabled, requireScope('bridge:propose')] };
  // The key is checked before the body, so that a missing or malformed key is reported whatever the body holds.
  const idempotencyKey: RequestHandler = (req, res, next) => {
    res.locals.idempotencyKey = parseIdempotencyKey(req.get('idempotency-key'));
    next();
  };
  const submit = { ...propose, before: [...propose.before, requireJson, idempotencyKey, jsonBody] };

  const answer = (res: Response, a: SubmitAnswer) => {
    if (a.replayed) res.setHeader('Idempotent-Replayed', 'true');
    res.status(a.status).location(proposalLocation(BRIDGE_BASE, a.body.proposal_id)).json(a.body);
  };
  const submitted =
    (kind: ProposalKind) =>
    async ({ body }: { body: ProposalBody }, req: Request, res: Response) => {
      const a = await proposals.submit({
        tenantId: req.auth!.tenantId,
        keyId: req.auth!.keyId,
        kind,
        idempotencyKey: res.locals.idempotencyKey as string,
        received: req.body as unknown,
        body,
      });
      answer(res, a);
    };

  registerRoute(router, bridgeRoutes.proposeDeal, submit, submitted('deal'));
  registerRoute(router, bridgeRoutes.proposeComplianceUpdate, submit, submitted('compliance_update'));
  registerRoute(router, bridgeRoutes.proposeFinancialLog, submit, submitted('financial_log'));

  registerRoute(router, bridgeRoutes.listProposals, read, async ({ query }, req, res) => {
    res.json(await proposals.list(req.auth!.tenantId, query));
  });
  registerRoute(router, bridgeRoutes.getProposal, read, async ({ params }, req, res) => {
    res.json(await proposals.get(req.auth!.tenantId, params.id));
  });
  registerRoute(router, bridgeRoutes.withdrawProposal, propose, async ({ params }, req, res) => {
    res.json(await proposals.withdraw(req.auth!.tenantId, req.auth!.keyId, params.id));
  });
  return router;
}
