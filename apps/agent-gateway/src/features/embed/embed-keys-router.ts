import { gatewayRoutes, WORKERS_BASE } from '@pa/contracts';
import { registerRoute, requireJson } from '@pa/http-kit';
import { type Request, Router } from 'express';
import { toApiEmbedKey } from './embed-mapper.ts';
import type { EmbedKeysService } from './embed-keys-service.ts';
import { embedSnippet } from './embed-snippet.ts';

// A worker's embed keys (docs/embedding.md), mounted at WORKERS_BASE behind the assistant router's workspace gate;
// the access middleware has let only the `admin` scope (or the operator) through. The key and its visitor secret
// are in the creating answer alone, which no cache may keep; an edit changes the settings, never the key.
export function createEmbedKeysRouter(deps: {
  embedKeys: EmbedKeysService;
  /** PUBLIC_BASE_URL: the address the host page's visitors reach the gateway at, when it differs from the admin's */
  publicBaseUrl: string | undefined;
}): Router {
  const router = Router({ mergeParams: true });
  const at = { mountedAt: WORKERS_BASE };
  // req.protocol and req.host follow X-Forwarded-* from a proxy TRUST_PROXY trusts; the host guard has vetted host
  const gatewayUrl = (req: Request) => deps.publicBaseUrl ?? `${req.protocol}://${req.host ?? ''}`;

  registerRoute(router, gatewayRoutes.listEmbedKeys, at, async ({ params: { workerId } }, req, res) => {
    const keys = await deps.embedKeys.list(req.workspaceId!, workerId);
    res.json({ embedKeys: keys.map(toApiEmbedKey) });
  });
  registerRoute(
    router,
    gatewayRoutes.createEmbedKey,
    { ...at, before: [requireJson] },
    async ({ params: { workerId }, body }, req, res) => {
      const made = await deps.embedKeys.create(req.workspaceId!, workerId, body);
      res
        .status(201)
        .set('Cache-Control', 'no-store')
        .json({
          key: toApiEmbedKey(made.key),
          embedKey: made.embedKey,
          visitorSecret: made.visitorSecret,
          snippet: embedSnippet(gatewayUrl(req), made.embedKey),
        });
    },
  );
  registerRoute(
    router,
    gatewayRoutes.updateEmbedKey,
    { ...at, before: [requireJson] },
    async ({ params: { workerId, embedKeyId }, body }, req, res) => {
      res.json(toApiEmbedKey(await deps.embedKeys.update(req.workspaceId!, workerId, embedKeyId, body)));
    },
  );
  registerRoute(
    router,
    gatewayRoutes.revokeEmbedKey,
    at,
    async ({ params: { workerId, embedKeyId } }, req, res) => {
      res.json(toApiEmbedKey(await deps.embedKeys.revoke(req.workspaceId!, workerId, embedKeyId)));
    },
  );
  return router;
}
