export * from './chat.ts';
export * from './gateway-openapi.ts';
export * from './bridge.ts';
export * from './bridge-openapi.ts';
export * from './health.ts';
export * from './openapi.ts';
export * from './params.ts';
export * from './problem.ts';
