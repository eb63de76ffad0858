import { randomBytes } from 'node:crypto';
import { EmbedKeyCreated, type EmbedKeyCreateRequest } from '@pa/contracts';
import { SignJWT } from 'jose';
import { expect } from 'vitest';
import { expectContract, postJson } from './http.ts';

// Embedding (docs/embedding.md) in tests: an embed key made through the gateway's admin API, calls to the embed
// API as a host page or the embed's iframe makes them, and visitor tokens signed as a host's server signs them.

export interface TestEmbedKey extends EmbedKeyCreated {
  workspaceId: string;
  workerId: string;
}

export async function createEmbedKey(
  baseUrl: string,
  worker: { workspaceId: string; workerId: string },
  body: EmbedKeyCreateRequest,
  headers: Record<string, string> = {},
): Promise<TestEmbedKey> {
  const res = await postJson(baseUrl, `/api/assistant/workers/${worker.workerId}/embed-keys`, body, {
    'X-Workspace-Id': worker.workspaceId,
    ...headers,
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return { ...expectContract(EmbedKeyCreated, await res.json()), ...worker };
}

/** A new anonymous visitor id, as the iframe makes one. */
export const anonymousVisitor = () => randomBytes(24).toString('base64url');

export type EmbedVisitor = { anonymous: string } | { token: string };

/** A call to /api/embed/<path> from `origin` (none: no Origin header, as from a server). */
export function embedCall(
  baseUrl: string,
  path: string,
  opts: {
    key: string;
    origin?: string | null;
    visitor?: EmbedVisitor;
    body?: unknown;
  },
): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-embed-key': opts.key };
  if (opts.origin) headers.origin = opts.origin;
  if (opts.visitor && 'anonymous' in opts.visitor) headers['x-embed-visitor'] = opts.visitor.anonymous;
  if (opts.visitor && 'token' in opts.visitor) headers['x-embed-visitor-token'] = opts.visitor.token;
  return fetch(`${baseUrl}/api/embed/${path}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(opts.body ?? {}),
  });
}

/** A visitor token as a host's server mints it (jose, HS256, the `gwv_…` secret's bytes). */
export function visitorToken(
  secret: string,
  claims: { sub?: string; name?: string; expiresInS?: number; iatOffsetS?: number; noIat?: boolean } = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT({ ...(claims.name ? { name: claims.name } : {}) })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime(now + (claims.expiresInS ?? 600));
  if (claims.sub !== undefined) jwt.setSubject(claims.sub);
  if (!claims.noIat) jwt.setIssuedAt(now + (claims.iatOffsetS ?? 0));
  return jwt.sign(new TextEncoder().encode(secret));
}

/** The text of an embed stream's content deltas. */
export function streamedText(sse: string): string {
  return sse
    .split('\n\n')
    .flatMap((block) => block.split('\n').filter((l) => l.startsWith('data: ')))
    .map((l) => l.slice(6))
    .filter((d) => d !== '[DONE]')
    .map(
      (d) =>
        (JSON.parse(d) as { choices?: { delta?: { content?: string } }[] }).choices?.[0]?.delta?.content ??
        '',
    )
    .join('');
}
