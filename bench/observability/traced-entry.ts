import { AsyncLocalStorage } from 'node:async_hooks';
import { startTracing } from '@pa/telemetry/tracing';

// The entry of a server under test in bench/observability.ts's modes other than `none`, doing what the apps' main.ts
// do: tracing is started (when the OTEL_* variables ask for it) before anything else is imported, since its
// instrumentations patch express, pg, ioredis and pino as they load; then the usual bench server (BENCH_OBS_APP:
// `bridge` → bench/bridge/server.ts, `gateway` → bench/gateway/server.ts) is imported and runs as it always does.
// Nothing above this comment may import those modules: a static import would load them before tracing starts.

const app = process.env.BENCH_OBS_APP;
if (app !== 'bridge' && app !== 'gateway') throw new Error('BENCH_OBS_APP must be bridge or gateway');

// the apps' own service names (main.ts); OTEL_SERVICE_NAME would win, and the bench sets none
await startTracing({ serviceName: app === 'bridge' ? 'platform-bridge' : 'agent-gateway' });
// BENCH_OBS_ALS=1 (the `als` mode): without OpenTelemetry, what its context manager costs by itself on Node 20: an
// AsyncLocalStorage holding a value from here on, so that its hooks run for every promise and callback
const als = process.env.BENCH_OBS_ALS === '1' ? new AsyncLocalStorage<object>() : undefined;
als?.enterWith({});
await import(app === 'bridge' ? '../bridge/server.ts' : '../gateway/server.ts');
