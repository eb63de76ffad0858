import { gatewayRoutes, SESSION_LIST_LIMIT } from '@pa/contracts';
import { jsonBody, NotFound, registerRoute, requireJson } from '@pa/http-kit';
import { Router } from 'express';
import type { SessionEdits } from './session-edits.ts';
import type { SessionHistoryReader } from './session-history.ts';
import { sessionOwner, sessionScope } from './session-owner.ts';

const notFound = () => new NotFound('session-not-found', 'No conversation with this id.');

// The web chat's conversation history: only the web channel's sessions, and only the caller's own. The list is a
// device's own conversations (the operator's: those of no workspace); a session read by id may be any of the
// caller's workspace (a device reads its workspace's sessions; another workspace's id is not found).
export function createSessionHistoryRouter(deps: {
  history: SessionHistoryReader;
  edits: SessionEdits;
}): Router {
  const { history, edits } = deps;
  const router = Router();

  registerRoute(router, gatewayRoutes.listSessions, async ({ query }, req, res) => {
    if (query.ids !== undefined) {
      // the browser's own ids (its localStorage cache), as before the list was kept on the server
      const ids = [...new Set(query.ids.split(','))];
      res.json({ sessions: await history.list(sessionOwner(req), ids), nextBefore: null });
      return;
    }
    const limit = query.limit ?? SESSION_LIST_LIMIT.default;
    res.json(await history.search(sessionScope(req), { q: query.q?.trim(), limit, before: query.before }));
  });

  registerRoute(router, gatewayRoutes.sessionHistory, async ({ params, query }, req, res) => {
    const page = await history.page(sessionOwner(req), params.sessionId, query.limit, query.before);
    if (!page) throw notFound();
    res.json(page);
  });

  const json = { before: [requireJson, jsonBody] };
  registerRoute(router, gatewayRoutes.renameSession, json, async ({ params, body }, req, res) => {
    const renamed = await edits.rename(sessionScope(req), params.sessionId, body.title);
    if (!renamed) throw notFound();
    res.json(renamed);
  });

  registerRoute(router, gatewayRoutes.deleteSession, async ({ params }, req, res) => {
    if (!(await edits.remove(sessionScope(req), params.sessionId))) throw notFound();
    res.status(204).end();
  });

  return router;
}
