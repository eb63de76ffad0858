import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { buildBridgeOpenApi, buildGatewayOpenApi } from '../src/index.ts';

interface Doc {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: Array<{ name: string; schema: Record<string, unknown> }>;
        responses: Record<string, unknown>;
      }
    >
  >;
}

describe.each([
  ['bridge', buildBridgeOpenApi],
  ['gateway', buildGatewayOpenApi],
])('the %s OpenAPI document', (name, build) => {
  it('passes the recommended OpenAPI lint rules with no errors or warnings', async () => {
    // Health probes have no client errors to document, so the 4xx rule is not applied. The gateway's document
    // also lists the proposal bodies as the arguments of its workers' proposal tools, which no gateway path
    // carries, so for it alone unused components are expected.
    const config = await createConfig({
      extends: ['recommended'],
      rules: {
        'operation-4xx-response': 'off',
        ...(name === 'gateway' ? { 'no-unused-components': 'off' } : {}),
      },
    });
    const problems = await lintFromString({
      source: JSON.stringify(build()),
      absoluteRef: `${name}.json`,
      config,
    });
    const report = problems.map(
      (p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`,
    );
    expect(report).toEqual([]);
  });
});

describe('the bridge OpenAPI document', () => {
  it('documents every bridge read with its parameters and problem responses', () => {
    const doc = buildBridgeOpenApi() as unknown as Doc;
    const email = doc.paths['/api/assistant-bridge/email-activity']!.get!;
    expect(email.parameters?.find((p) => p.name === 'hours')?.schema).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 720,
      default: 24,
    });
    expect(Object.keys(email.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '404', '429']));
    for (const path of ['portfolio', 'properties/{id}', 'properties/{id}/compliance', 'deals', 'mailboxes']) {
      expect(doc.paths[`/api/assistant-bridge/${path}`]?.get).toBeDefined();
    }
  });
});

describe('the bridge OpenAPI document: rate limit headers', () => {
  it('lists RateLimit and RateLimit-Policy on every successful answer of a route that needs a key, only there', () => {
    const doc = buildBridgeOpenApi() as unknown as {
      paths: Record<
        string,
        Record<string, { security?: unknown[]; responses: Record<string, { headers?: object }> }>
      >;
    };
    let secured = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const [status, response] of Object.entries(op.responses)) {
          if (!status.startsWith('2')) continue;
          const names = Object.keys(response.headers ?? {});
          if (op.security?.length) {
            secured += 1;
            expect(names, `${method} ${path} ${status}`).toEqual(
              expect.arrayContaining(['RateLimit', 'RateLimit-Policy']),
            );
          } else expect(names, `${method} ${path} ${status}`).not.toContain('RateLimit');
        }
      }
    }
    // the reads, the proposals and the admin API
    expect(secured).toBeGreaterThanOrEqual(15);
  });
});

describe('the gateway OpenAPI document', () => {
  it('documents the chat routes, the stream as text/event-stream, and the rate limit', () => {
    const doc = buildGatewayOpenApi() as unknown as Doc;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/chat', '/api/chat/stream', '/api/providers', '/api/clear']),
    );
    const stream = doc.paths['/api/chat/stream']!.get!;
    expect(JSON.stringify(stream.responses['200'])).toContain('text/event-stream');
    expect(Object.keys(stream.responses)).toEqual(expect.arrayContaining(['200', '400', '429']));
  });
});
