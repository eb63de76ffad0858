// HTTP-agnostic errors with a stable `code`; the problem middleware turns them into RFC 9457 responses.
// Anything that is not an AppError is reported as a 500 without details.

export interface FieldError {
  pointer: string;
  detail: string;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    detail: string,
    readonly extra: {
      errors?: FieldError[];
      headers?: Record<string, string>;
      members?: Record<string, unknown>;
    } = {},
  ) {
    super(detail);
  }
}

export const ValidationFailed = (errors: FieldError[], detail = 'The request is not valid.') =>
  new AppError(400, 'validation-failed', 'Validation failed', detail, { errors });

export const NotFound = (code: string, detail: string) => new AppError(404, code, 'Not found', detail);

export const Unauthorized = (code: string, detail: string, realm: string) =>
  new AppError(401, code, 'Unauthorized', detail, {
    headers: { 'WWW-Authenticate': `Bearer realm="${realm}", error="invalid_token"` },
  });

export const Conflict = (code: string, detail: string, members?: Record<string, unknown>) =>
  new AppError(409, code, 'Conflict', detail, members ? { members } : {});

export const Unprocessable = (code: string, detail: string) =>
  new AppError(422, code, 'Unprocessable content', detail);

export const Forbidden = (code: string, detail: string, headers?: Record<string, string>) =>
  new AppError(403, code, 'Forbidden', detail, headers ? { headers } : {});
