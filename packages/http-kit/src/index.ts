// HTTP plumbing shared by both apps: one error vocabulary, RFC 9457 problem responses, request ids,
// contract validation and redacted structured logs.
export * from './conditional.ts';
export * from './config.ts';
export * from './contract-route.ts';
export * from './route-response.ts';
export * from './database-errors.ts';
export * from './readiness.ts';
export * from './address-policy.ts';
export * from './errors.ts';
export * from './logger.ts';
export * from './problem.ts';
export * from './rate-limit.ts';
export * from './server.ts';
export * from './shutdown.ts';
export * from './query-once.ts';
export * from './request-id.ts';
export * from './secret-token.ts';
export * from './require-json.ts';
export * from './validate.ts';
export * from './rate-limit-store.ts';
export * from './redis.ts';
export * from './data-key.ts';
export * from './periodic-task.ts';
export * from './text-table.ts';
