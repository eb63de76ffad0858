import { gatewayRoutes } from '@pa/contracts';
import { registerRoute, requireJson } from '@pa/http-kit';
import { type RequestHandler, Router } from 'express';
import { callerOf } from '../workspace/caller.ts';
import type { PairingService } from './pairing-service.ts';
import { setSessionCookie } from './session-cookie.ts';

// Pairing codes and devices (docs/access.md). The access middleware has checked the scope; the service applies the
// caller's workspace.
export function createAccessRouter(deps: { pairing: PairingService; redeemLimit: RequestHandler }): Router {
  const { pairing } = deps;
  const router = Router();

  registerRoute(
    router,
    gatewayRoutes.createPairingCode,
    { before: [requireJson] },
    async ({ body }, req, res) => {
      res.status(201).json(await pairing.createCode(callerOf(req), body));
    },
  );

  registerRoute(
    router,
    gatewayRoutes.redeemPairingCode,
    { before: [deps.redeemLimit, requireJson] },
    async ({ body }, req, res) => {
      const paired = await pairing.redeem(body);
      setSessionCookie(req, res, paired.token);
      res.status(201).set('Cache-Control', 'no-store').json(paired);
    },
  );

  registerRoute(router, gatewayRoutes.listDevices, async (_input, req, res) => {
    res.json({ devices: await pairing.listDevices(callerOf(req)) });
  });

  registerRoute(router, gatewayRoutes.revokeDevice, async ({ params }, req, res) => {
    await pairing.revokeDevice(callerOf(req), params.deviceId);
    res.status(204).end();
  });

  return router;
}
