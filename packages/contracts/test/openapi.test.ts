import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { buildBridgeOpenApi } from '../src/index.ts';

describe('the bridge OpenAPI document', () => {
  it('passes the recommended OpenAPI lint rules with no errors or warnings', async () => {
    // Health probes have no client errors to document, so the 4xx rule is the one rule not applied.
    const config = await createConfig({
      extends: ['recommended'],
      rules: { 'operation-4xx-response': 'off' },
    });
    const problems = await lintFromString({
      source: JSON.stringify(buildBridgeOpenApi()),
      absoluteRef: 'bridge.json',
      config,
    });
    const report = problems.map(
      (p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`,
    );
    expect(report).toEqual([]);
  });

  it('documents every bridge read with its parameters and problem responses', () => {
    const doc = buildBridgeOpenApi() as {
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
    };
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
