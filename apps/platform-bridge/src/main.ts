import { startTracing } from '@pa/telemetry/tracing';

// The entry point (`node --import tsx apps/platform-bridge/src/main.ts`). Tracing, when the OTEL_* variables ask
// for it, starts before the rest of the process is imported: its instrumentations patch express, pg and ioredis as
// they load. The process itself is serve.ts.
await startTracing({ serviceName: 'platform-bridge' });
const { serve } = await import('./serve.ts');
serve().catch((err: unknown) => {
  console.error('platform-bridge failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
