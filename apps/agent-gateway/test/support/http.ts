import { Problem } from '@pa/contracts';
import { expect } from 'vitest';
import type { z } from 'zod';

export function expectContract<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const r = schema.safeParse(body);
  if (!r.success) expect.fail(`response breaks its contract: ${JSON.stringify(r.error.issues, null, 2)}`);
  return r.data;
}

export async function expectProblem(res: Response, status: number, code: string): Promise<Problem> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const p = expectContract(Problem, await res.json());
  expect(p.code).toBe(code);
  expect(p.status).toBe(status);
  expect(JSON.stringify(p)).not.toMatch(/at .*\.ts:\d+|SELECT |prisma/i);
  return p;
}

export function postJson(baseUrl: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}
