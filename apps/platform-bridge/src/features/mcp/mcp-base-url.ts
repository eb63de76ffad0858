import type { Request } from 'express';

/**
 * The platform's public origin as a client reached it: PLATFORM_PUBLIC_URL when the operator set it, else the request's
 * own scheme and host (behind a proxy, X-Forwarded-Proto and -Host count when TRUST_PROXY trusts it).
 */
export function publicBaseUrl(req: Request, configured: string | undefined): string {
  return configured ?? `${req.protocol}://${req.host}`;
}
