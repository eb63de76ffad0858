import { startTracing } from '@pa/telemetry/tracing';

// The worker process's entry point (`node --import tsx apps/agent-gateway/src/worker.ts`, docker compose's
// summary-worker). Tracing, when the OTEL_* variables ask for it, starts before the rest of the process is
// imported, as in main.ts. The process itself is serve-worker.ts.
await startTracing({ serviceName: 'agent-gateway-worker' });
const { serveWorker } = await import('./serve-worker.ts');
serveWorker().catch((err: unknown) => {
  console.error('agent-gateway worker failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
