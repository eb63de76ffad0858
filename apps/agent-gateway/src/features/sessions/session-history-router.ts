import { gatewayRoutes } from '@pa/contracts';
import { NotFound, registerRoute } from '@pa/http-kit';
import { Router } from 'express';
import type { SessionHistoryReader } from './session-history.ts';
import { sessionOwner } from './session-owner.ts';

// The web chat's conversation history: only the web channel's sessions, addressed by the ids the browser holds,
// and only the caller's own (a device reads its workspace's sessions; another workspace's id is not found).
export function createSessionHistoryRouter(deps: { history: SessionHistoryReader }): Router {
  const { history } = deps;
  const router = Router();

  registerRoute(router, gatewayRoutes.listSessions, async ({ query }, req, res) => {
    const ids = [...new Set(query.ids.split(','))];
    res.json({ sessions: await history.list(sessionOwner(req), ids) });
  });

  registerRoute(router, gatewayRoutes.sessionHistory, async ({ params, query }, req, res) => {
    const page = await history.page(sessionOwner(req), params.sessionId, query.limit, query.before);
    if (!page) throw new NotFound('session-not-found', 'No conversation with this id.');
    res.json(page);
  });

  return router;
}
