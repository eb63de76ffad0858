export {};
// metrics (Prometheus, prom-client): see metrics.ts
export * from './metrics.ts';
export * from './metrics-app.ts';
export * from './metrics-http.ts';
export * from './metrics-pool.ts';
export * from './metrics-exposition.ts';
export * from './metrics-settings.ts';
// tracing (OpenTelemetry): see tracing.ts; the SDK itself (tracing-sdk.ts) is imported only when tracing is on
export * from './tracing.ts';
