import { BRIDGE_BASE, bridgeRoutes } from '@pa/contracts';
import { registerRoute } from '@pa/http-kit';
import { Router } from 'express';
import { requireScope } from '../auth/authenticate.ts';
import type { KnowledgeChangesService } from './knowledge-changes-service.ts';
import type { KnowledgeSearchService } from './knowledge-search-service.ts';

// GET /knowledge/changes behind bridge:read: the corpus is read data of the same tenant as the other reads, and
// the gateway's existing binding keys carry bridge:read, so a scope of its own would only force every binding to
// be re-keyed. Mounted at BRIDGE_BASE behind the bridge's guard (key, flag, rate limit).
export function createKnowledgeRouter(deps: {
  knowledge: KnowledgeChangesService;
  search: KnowledgeSearchService;
}): Router {
  const router = Router();
  const at = { mountedAt: BRIDGE_BASE, before: [requireScope('bridge:read')] };

  registerRoute(router, bridgeRoutes.getKnowledgeChanges, at, async ({ query }, req, res) => {
    res.json(await deps.knowledge.listChanges(req.auth!.tenantId, query));
  });
  registerRoute(router, bridgeRoutes.searchKnowledge, at, async ({ query }, req, res) => {
    res.json(await deps.search.search(req.auth!.tenantId, query));
  });
  return router;
}
