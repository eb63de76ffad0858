import { MCP_PATHS } from '@pa/contracts';
import { Forbidden, Unauthorized } from '@pa/http-kit';
import type { ErrorRequestHandler } from 'express';
import { publicBaseUrl } from './mcp-base-url.ts';

// What the MCP endpoint's refusals say beyond the bridge's (mounted on its path, after the bridge's guard, so that
// the guard's errors pass here): a 401 or 403 challenge names the endpoint's RFC 9728 metadata (resource_metadata,
// as MCP clients look for it) and the scope that would do; a request without any credentials gets no `error` code
// (RFC 6750 §3.1).

export function mcpProblems(configuredBaseUrl: string | undefined): ErrorRequestHandler {
  return (err, req, _res, next) => {
    const resourceMetadata = () => `${publicBaseUrl(req, configuredBaseUrl)}${MCP_PATHS.metadata}`;
    if (err instanceof Unauthorized && err.challenge) {
      const { error, ...challenge } = err.challenge;
      next(
        new Unauthorized(err.code, err.message, {
          ...challenge,
          ...(req.get('authorization') === undefined ? {} : { error }),
          scope: 'bridge:read',
          resourceMetadata: resourceMetadata(),
        }),
      );
      return;
    }
    if (err instanceof Forbidden && err.challenge) {
      next(new Forbidden(err.code, err.message, { ...err.challenge, resourceMetadata: resourceMetadata() }));
      return;
    }
    next(err);
  };
}
