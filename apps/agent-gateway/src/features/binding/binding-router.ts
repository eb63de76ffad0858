import { BindRequest, WorkerIdParams } from '@pa/contracts';
import { FeatureDisabled, parseOrThrow, requireJson } from '@pa/http-kit';
import { type RequestHandler, Router } from 'express';
import type { BindingService } from './binding-service.ts';

export function createBindingRouter(deps: { binding: BindingService; bridgeEnabled: boolean }): Router {
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

  router.post('/:workerId/platform/bind', enabled, requireJson, async (req, res) => {
    const { workerId } = parseOrThrow(WorkerIdParams, req.params);
    const body = parseOrThrow(BindRequest, req.body);
    res.json(await binding.bind(req.workspaceId!, workerId, body.tenantSlug, body.apiKey));
  });
  router.get('/:workerId/platform', enabled, async (req, res) => {
    const { workerId } = parseOrThrow(WorkerIdParams, req.params);
    res.json(await binding.get(req.workspaceId!, workerId));
  });
  router.delete('/:workerId/platform/bind', enabled, async (req, res) => {
    const { workerId } = parseOrThrow(WorkerIdParams, req.params);
    res.json(await binding.unbind(req.workspaceId!, workerId));
  });
  return router;
}
