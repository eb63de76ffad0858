import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { inSpan, inSpanContinuing, traceMiddleware, tracingActive, tracingWanted } from '../src/tracing.ts';
import { redactPath, redactQuery, redactUrl } from '../src/tracing-redact.ts';
import { instrumentationNames } from '../src/tracing-sdk.ts';

// Tracing's switch, what it costs when off, and what spans may say about URLs. The spans themselves, across both
// apps as they run, are test/tracing.test.ts's.

const execFileAsync = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../../..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'pa-telemetry-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('tracingWanted', () => {
  it('is off by default, on with an OTLP endpoint, and off again when the SDK or the exporter is turned off', () => {
    expect(tracingWanted({})).toBe(false);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toBe(false);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(
      true,
    );
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'TRUE' })).toBe(
      false,
    );
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'false' })).toBe(
      true,
    );
    expect(
      tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }),
    ).toBe(false);
  });
});

describe('instrumentationNames', () => {
  it('all by default; OTEL_NODE_ENABLED_INSTRUMENTATIONS keeps some, OTEL_NODE_DISABLED_INSTRUMENTATIONS drops some', () => {
    expect(instrumentationNames({})).toEqual(['http', 'express', 'pg', 'ioredis', 'undici', 'pino']);
    expect(instrumentationNames({ OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'express, pino' })).toEqual([
      'http',
      'pg',
      'ioredis',
      'undici',
    ]);
    expect(
      instrumentationNames({
        OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http,pg,nestjs-core',
        OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'pg',
      }),
    ).toEqual(['http']);
  });
});

/** The modules a process resolves when it imports @pa/telemetry and starts tracing with `env`. */
async function modulesLoaded(name: string, env: Record<string, string>): Promise<string[]> {
  const file = path.join(dir, `${name}.txt`);
  const script = [
    "const t = await import('@pa/telemetry');",
    "const on = await t.startTracing({ serviceName: 'test' });",
    "await import('express');",
    'process.stdout.write(JSON.stringify({ on, active: t.tracingActive() }));',
    'await t.stopTracing();',
  ].join('\n');
  const { stdout } = await execFileAsync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--import',
      './packages/telemetry/test/support/record-imports.mjs',
      '--input-type=module',
      '-e',
      script,
    ],
    {
      cwd: root,
      env: {
        ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_'))),
        RECORD_IMPORTS_TO: file,
        ...env,
      },
    },
  );
  const state = JSON.parse(stdout) as { on: boolean; active: boolean };
  expect(state.active).toBe(state.on);
  return readFileSync(file, 'utf8').split('\n').filter(Boolean);
}

// anything of OpenTelemetry (even its API), its module hooks, and our module that imports the SDK
const OTEL = /tracing-sdk\.ts|@opentelemetry\/|import-in-the-middle|require-in-the-middle|bullmq-otel/;

describe('startTracing', () => {
  it('off: nothing of OpenTelemetry is loaded (no SDK, exporter or instrumentation, not even the API)', async () => {
    const loaded = await modulesLoaded('off', {});
    expect(loaded.some((u) => u.includes('/packages/telemetry/src/tracing.ts'))).toBe(true);
    expect(loaded.filter((u) => OTEL.test(u))).toEqual([]);
  }, 60_000);

  it('on (an OTLP endpoint): the SDK is loaded and the process traces', async () => {
    // nothing listens there: the spans are dropped, which must not keep the process from ending
    const loaded = await modulesLoaded('on', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
    expect(loaded.some((u) => u.includes('/packages/telemetry/src/tracing-sdk.ts'))).toBe(true);
    expect(loaded.some((u) => u.includes('/@opentelemetry/sdk-trace-node/'))).toBe(true);
  }, 60_000);
});

describe('hand-written spans with tracing off', () => {
  it('inSpan and inSpanContinuing run the function and pass its result and its error on, as if not there', async () => {
    expect(tracingActive()).toBe(false);
    await expect(
      inSpan('x', undefined, async (span) => {
        span.set('a', 1);
        span.fail('no');
        return 42;
      }),
    ).resolves.toBe(42);
    await expect(
      inSpanContinuing(
        { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
        'y',
        {},
        () => Promise.reject(new Error('boom')),
      ),
    ).rejects.toThrow('boom');
  });

  it('traceMiddleware hands back the middleware itself', () => {
    const mw = (_req: unknown, _res: { once(e: 'finish', fn: () => void): unknown }, next: () => void) =>
      next();
    expect(traceMiddleware('m', mw)).toBe(mw);
  });
});

describe('what a span may say about a URL', () => {
  it('keeps the query’s names and drops its values', () => {
    expect(redactQuery('message=which%20gas&sessionId=s_abc&flag')).toBe(
      'message=REDACTED&sessionId=REDACTED&flag',
    );
    expect(redactQuery('?limit=20')).toBe('limit=REDACTED');
    expect(redactQuery('')).toBe('');
  });

  it('drops a Telegram bot token from the path, and query values from a full URL', () => {
    expect(redactPath('/bot123456:AAHsecret-part_x/sendMessage')).toBe('/botREDACTED/sendMessage');
    expect(redactUrl('https://api.telegram.org/bot42:abc/getUpdates?offset=7&timeout=30#x')).toBe(
      'https://api.telegram.org/botREDACTED/getUpdates?offset=REDACTED&timeout=REDACTED',
    );
    expect(redactUrl('http://127.0.0.1:4000/api/assistant-bridge/portfolio')).toBe(
      'http://127.0.0.1:4000/api/assistant-bridge/portfolio',
    );
  });
});
