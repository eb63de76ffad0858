import type { Request, Response } from 'express';

// The browser's credential: the device token in the `gw_session` cookie, HttpOnly (no script reads it),
// SameSite=Strict (no other site's request carries it), Path=/, and Secure when the request came over HTTPS
// (req.secure: the connection, or X-Forwarded-Proto from a proxy that TRUST_PROXY trusts).

export const SESSION_COOKIE = 'gw_session';
// A device token lives until it is revoked; the browser keeps the cookie for a year.
const MAX_AGE_MS = 365 * 24 * 3600_000;

export function setSessionCookie(req: Request, res: Response, token: string): void {
  res.cookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'strict',
    path: '/',
    secure: req.secure,
    maxAge: MAX_AGE_MS,
  });
}

/** The `gw_session` cookie's value, if the request carries one. */
export function sessionCookie(req: Request): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}
