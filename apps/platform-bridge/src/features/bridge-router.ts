import { DealsQuery, EmailActivityQuery, PortfolioQuery, PropertyIdParams } from '@pa/contracts';
import { Router } from 'express';
import { rateLimit } from 'express-rate-limit';
import { rateLimitExceeded } from '@pa/http-kit';
import { parseOrThrow } from '@pa/http-kit';
import type { createAuthenticator } from './auth/authenticate.ts';
import { requireScope } from './auth/authenticate.ts';
import type { DealsService } from './deals/deals-service.ts';
import type { EmailActivityService } from './email-activity/email-activity-service.ts';
import type { PortfolioService } from './portfolio/portfolio-service.ts';
import type { PropertiesService } from './properties/properties-service.ts';

export interface BridgeRouterDeps {
  authenticator: ReturnType<typeof createAuthenticator>;
  portfolio: PortfolioService;
  properties: PropertiesService;
  deals: DealsService;
  email: EmailActivityService;
  rateLimitPerMin: number;
}

// /api/assistant-bridge: authenticate, check the tenant's flag, count against the key's budget, then read.
export function createBridgeRouter(deps: BridgeRouterDeps): Router {
  const { authenticator, portfolio, properties, deals, email } = deps;
  const router = Router();

  router.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  router.use(authenticator.bridge());
  router.use(
    rateLimit({
      windowMs: 60_000,
      limit: deps.rateLimitPerMin,
      standardHeaders: 'draft-8',
      legacyHeaders: false,
      identifier: 'per-key',
      keyGenerator: (req) => `key:${req.auth!.keyId}`,
      handler: rateLimitExceeded(
        (seconds) =>
          `Rate limit of ${deps.rateLimitPerMin} requests per minute for this key exceeded; try again in ${seconds} s.`,
      ),
    }),
  );

  const read = requireScope('bridge:read');

  router.get('/portfolio', read, async (req, res) => {
    const query = parseOrThrow(PortfolioQuery, req.query);
    const auth = req.auth!;
    res.json(
      await portfolio.getPortfolio(
        { id: auth.tenantId, slug: auth.tenantSlug, name: auth.tenantName },
        query,
      ),
    );
  });

  router.get('/properties/:id', read, async (req, res) => {
    const { id } = parseOrThrow(PropertyIdParams, req.params);
    res.json(await properties.getProperty(req.auth!.tenantId, id));
  });

  router.get('/properties/:id/compliance', read, async (req, res) => {
    const { id } = parseOrThrow(PropertyIdParams, req.params);
    res.json(await properties.getCompliance(req.auth!.tenantId, id));
  });

  router.get('/deals', read, async (req, res) => {
    const query = parseOrThrow(DealsQuery, req.query);
    res.json(await deals.listDeals(req.auth!.tenantId, query));
  });

  router.get('/email-activity', read, async (req, res) => {
    const { hours } = parseOrThrow(EmailActivityQuery, req.query);
    res.json(await email.listActivity(req.auth!.tenantId, hours));
  });

  router.get('/mailboxes', read, async (req, res) => {
    res.json(await email.listMailboxes(req.auth!.tenantId));
  });

  return router;
}
