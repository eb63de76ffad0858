import { readFile } from 'node:fs/promises';
import {
  BRIDGE_SCOPES,
  bridgeRoutes,
  MCP_GUIDE_PATH,
  MCP_PATHS,
  type ProtectedResourceMetadata,
} from '@pa/contracts';
import { NotFound, registerRoute } from '@pa/http-kit';
import { type Request, type RequestHandler, Router } from 'express';
import { publicBaseUrl } from './mcp-base-url.ts';

// What a standard MCP client reads before it calls (RFC 9728, linked from the endpoint's 401 challenge): the
// resource is the MCP endpoint, the scopes a bridge key may hold, keys in the Authorization header only, and where
// the guide is. Public, and readable from any page (a browser-based client discovers it cross-origin). Also serves
// the guide itself (docs/mcp.md), unless MCP_DOCUMENTATION_URL points elsewhere.

export interface ProtectedResourceOptions {
  /** PLATFORM_PUBLIC_URL, else each request's own origin */
  publicBaseUrl: string | undefined;
  /** MCP_DOCUMENTATION_URL; unset: the guide served here */
  documentationUrl: string | undefined;
  /** the guide's Markdown file */
  guideFile: string;
}

const anyOrigin: RequestHandler = (_req, res, next) => {
  res.setHeader('Access-Control-Allow-Origin', '*');
  next();
};

export function createProtectedResourceRouter(opts: ProtectedResourceOptions): Router {
  const router = Router();
  const metadata = (req: Request): ProtectedResourceMetadata => {
    const base = publicBaseUrl(req, opts.publicBaseUrl);
    return {
      resource: `${base}${MCP_PATHS.endpoint}`,
      scopes_supported: [...BRIDGE_SCOPES],
      bearer_methods_supported: ['header'],
      resource_name: 'Property platform (assistant bridge)',
      resource_documentation: opts.documentationUrl ?? `${base}${MCP_GUIDE_PATH}`,
    };
  };
  const at = { before: [anyOrigin] };
  registerRoute(router, bridgeRoutes.mcpResourceMetadata, at, (_input, req, res) => {
    res.json(metadata(req));
  });
  registerRoute(router, bridgeRoutes.oauthProtectedResource, at, (_input, req, res) => {
    res.json(metadata(req));
  });

  let guide: Promise<string> | undefined;
  registerRoute(router, bridgeRoutes.mcpGuide, async (_input, _req, res) => {
    // read once; a missing file is tried again on the next request (it may be deployed later)
    guide ??= readFile(opts.guideFile, 'utf8');
    const text = await guide.catch(() => {
      guide = undefined;
      throw new NotFound('not-found', 'The MCP guide is not installed on this server.');
    });
    res.type('text/markdown; charset=utf-8').send(text);
  });
  return router;
}
