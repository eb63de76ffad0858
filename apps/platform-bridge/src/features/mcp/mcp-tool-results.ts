import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { PROBLEM_TYPE_BASE, problemOf } from '@pa/http-kit';
import { renderToolText } from './mcp-text-rendering.ts';

// What a tool call answers. Success: the route's answer as structuredContent (the tool's outputSchema) and a short
// text. Failure: a tool error (isError) whose text says what went wrong and then gives the problem details the
// REST route would have answered, as JSON; no structuredContent, which a client would check against the
// outputSchema of a success.

/** The problem members a tool error carries: RFC 9457's, the stable code, field errors and extension members. */
export interface ToolProblem extends ProblemFields {
  type: string;
}

interface ProblemFields {
  title: string;
  status: number;
  code: string;
  detail: string;
  [member: string]: unknown;
}

export function toolSuccess(title: string, answer: object, note?: string): CallToolResult {
  const text = renderToolText(title, answer);
  return {
    structuredContent: answer as Record<string, unknown>,
    content: [{ type: 'text', text: note ? `${note}\n${text}` : text }],
  };
}

const INTERNAL: ProblemFields = {
  status: 500,
  code: 'internal-error',
  title: 'Internal server error',
  detail: 'Something went wrong on our side; the call can be tried again.',
};

/** The problem an error is, as the REST API would answer it; anything unexpected is a bare internal error. */
export function problemFor(err: unknown): ToolProblem {
  const p = problemOf(err);
  const fields: ProblemFields = p
    ? {
        status: p.status,
        code: p.code,
        title: p.title,
        detail: p.detail,
        ...(p.errors ? { errors: p.errors } : {}),
        ...p.members,
      }
    : INTERNAL;
  return { type: `${PROBLEM_TYPE_BASE}${fields.code}`, ...fields };
}

export function toolError(problem: ToolProblem): CallToolResult {
  const fields = Array.isArray(problem.errors)
    ? (problem.errors as Array<{ pointer: string; detail: string }>)
        .map((e) => ` ${e.pointer.replace(/^#\//, '')} ${e.detail}.`)
        .join('')
    : '';
  return {
    isError: true,
    content: [
      { type: 'text', text: `${problem.title} (${problem.code}): ${problem.detail}${fields}` },
      { type: 'text', text: JSON.stringify(problem) },
    ],
  };
}
