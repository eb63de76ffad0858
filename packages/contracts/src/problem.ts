import { z } from 'zod';
import { text } from './text.ts';

// RFC 9457 problem details, shared by both apps. `code` repeats the slug of `type` so that clients can switch
// on a plain string; extension members (e.g. `current_status`) are allowed, hence a loose object.
export const ProblemFieldError = z.strictObject({
  pointer: text().describe('JSON pointer to the offending input, e.g. `#/hours`'),
  detail: text(),
});

export const Problem = z.looseObject({
  type: text().describe('`/problems/<code>`'),
  title: text(),
  status: z.number().int().min(400).max(599),
  detail: text(),
  instance: text(),
  code: text().regex(/^[a-z0-9-]+$/),
  request_id: text(),
  errors: z.array(ProblemFieldError).optional(),
});
export type Problem = z.infer<typeof Problem>;
export type ProblemFieldError = z.infer<typeof ProblemFieldError>;

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';
