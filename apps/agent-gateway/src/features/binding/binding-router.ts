import { gatewayRoutes, WORKERS_BASE } from '@pa/contracts';
import { FeatureDisabled, registerRoute, requireJson } from '@pa/http-kit';
import { type RequestHandler, Router } from 'express';
import type { BindingService } from './binding-service.ts';

export function createBindingRouter(deps: {
  binding: BindingService;
  bridgeEnabled: boolean;
  setupLimit: RequestHandler[];
}): Router {
  const { binding } = deps;
  const router = Router({ mergeParams: true });
  const enabled: RequestHandler = (_req, _res, next) => {
    if (!deps.bridgeEnabled) {
      throw new FeatureDisabled(
        'platform-bridge-disabled',
        'The platform bridge is off (PLATFORM_BRIDGE_ENABLED).',
      );
    }
    next();
  };

  // Mounted at WORKERS_BASE, behind the workspace guard.
  const at = { mountedAt: WORKERS_BASE, before: [enabled] };
  const bind = { ...at, before: [enabled, ...deps.setupLimit, requireJson] };
  registerRoute(router, gatewayRoutes.bindWorker, bind, async ({ params: { workerId }, body }, req, res) => {
    res.json(await binding.bind(req.workspaceId!, workerId, body.tenantSlug, body.apiKey));
  });
  registerRoute(router, gatewayRoutes.getBinding, at, async ({ params: { workerId } }, req, res) => {
    res.json(await binding.get(req.workspaceId!, workerId));
  });
  registerRoute(router, gatewayRoutes.unbindWorker, at, async ({ params: { workerId } }, req, res) => {
    res.json(await binding.unbind(req.workspaceId!, workerId));
  });
  return router;
}
