import { startTracing } from '@pa/telemetry/tracing';

// The entry point (`node --import tsx apps/agent-gateway/src/main.ts`). Tracing, when the OTEL_* variables ask
// for it, starts before the rest of the process is imported: its instrumentations patch express, pg, ioredis and
// pino as they load. The process itself is serve.ts.
await startTracing({ serviceName: 'agent-gateway' });
const { serve } = await import('./serve.ts');
serve().catch((err: unknown) => {
  console.error('agent-gateway failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
