import type { z } from 'zod';
import { ValidationFailed } from './errors.ts';

function pointer(path: PropertyKey[]): string {
  return `#/${path.map((p) => String(p).replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;
}

// Parses with a contract schema; failures become one 400 with a JSON pointer per problem.
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const errors = result.error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        pointer: pointer([...issue.path, key]),
        detail: 'is not a known field',
      }));
    }
    return [{ pointer: pointer(issue.path), detail: issue.message }];
  });
  throw new ValidationFailed(errors);
}
