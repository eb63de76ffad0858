import { Problem } from '@pa/contracts';
import { expect } from 'vitest';
import type { z } from 'zod';

/** Every response body in these tests goes through its contract schema; returns the parsed body. */
export function expectContract<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const r = schema.safeParse(body);
  if (!r.success) expect.fail(`response breaks its contract: ${JSON.stringify(r.error.issues, null, 2)}`);
  return r.data;
}

export function expectProblem(
  res: { status: number; headers: Record<string, string>; body: unknown },
  status: number,
  code: string,
): Problem {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const p = expectContract(Problem, res.body);
  expect(p.code).toBe(code);
  expect(p.type).toBe(`/problems/${code}`);
  expect(p.status).toBe(status);
  expect(JSON.stringify(p)).not.toMatch(/at .*\.ts:\d+|SELECT |prisma/i);
  return p;
}
