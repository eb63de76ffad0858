import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { scaled } from '@pa/http-kit/testing';
import { type BridgeForTests, startBridgeForTests } from '@pa/platform-bridge/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CONFORMANCE_CLI,
  ensureConformanceTools,
  INSPECTOR_CLI,
  NODE24,
} from '../scripts/mcp-conformance/tools.ts';
import { type BearerProxy, startBearerProxy } from './support/bearer-proxy.ts';

// Issue 36: the bridge's MCP endpoint checked by clients nobody here wrote, over real HTTP against the real bridge
// (its own database, the demo portfolio): the MCP project's conformance suite (@modelcontextprotocol/conformance)
// and the inspector's CLI (@modelcontextprotocol/inspector-cli), both pinned in tools/mcp-conformance and run under
// that package's Node 24 (the suite needs Node ≥ 22). The suite connects with a bare URL and has no header option, so
// it goes through a loopback proxy that adds the key (test/support/bearer-proxy.ts); the inspector sends the key
// itself (`--header`). Which scenarios apply, and why the others do not, is in docs/mcp.md.

const ROOT = path.resolve(import.meta.dirname, '..');
const MCP_PATH = '/api/assistant-bridge/mcp';

/**
 * The suite's server scenarios that apply to this server: each must pass (every check SUCCESS, no FAILURE or
 * WARNING). They need nothing but what any MCP server offers, or what this one does offer.
 */
const APPLIES = [
  'server-initialize',
  'ping',
  'tools-list',
  'resources-list',
  'prompts-list',
  'dns-rebinding-protection',
] as const;

/**
 * The scenarios that do not apply, and why (docs/mcp.md says the same). Most call fixtures of the suite's own
 * "everything" test server by name (`test_simple_text`, `test://static-text`, `test_simple_prompt`...), which no real
 * server has; the rest need what a stateless server that answers with JSON does not offer: a session, a stream on
 * which the server sends requests or notifications to the client, or subscriptions.
 */
const DOES_NOT_APPLY: Record<string, string> = {
  'logging-set-level': 'no logging capability: a stateless server has no stream to send log messages on',
  'completion-complete':
    "completes the suite's fixture prompt test_prompt_with_arguments; no completions here",
  'tools-call-simple-text': 'calls the fixture tool test_simple_text',
  'tools-call-image': 'calls the fixture tool test_image_content',
  'tools-call-audio': 'calls the fixture tool test_audio_content',
  'tools-call-embedded-resource': 'calls the fixture tool test_embedded_resource',
  'tools-call-mixed-content': 'calls the fixture tool test_multiple_content_types',
  'tools-call-with-logging': 'log notifications during a call: needs a stream to the client',
  'tools-call-error': 'calls the fixture tool test_error_handling',
  'tools-call-with-progress': 'progress notifications during a call: needs a stream to the client',
  'tools-call-sampling': 'the server asks the client for a completion (sampling): needs a session',
  'tools-call-elicitation': 'the server asks the user a question (elicitation): needs a session',
  'elicitation-sep1034-defaults': 'elicitation: needs a session',
  'elicitation-sep1330-enums': 'elicitation: needs a session',
  'json-schema-2020-12': 'lists the fixture tool json_schema_2020_12_tool (a pending scenario)',
  'server-sse-multiple-streams': 'several SSE streams of one session: no sessions, GET is 405',
  'server-sse-polling':
    'resuming an SSE stream of a session (test_reconnection): no sessions (a pending scenario)',
  'resources-read-text': 'reads the fixture resource test://static-text',
  'resources-read-binary': 'reads the fixture resource test://static-binary',
  'resources-templates-read': 'reads the fixture template test://template/{id}/data',
  'resources-subscribe': 'resource subscriptions: need a session to notify',
  'resources-unsubscribe': 'resource subscriptions: need a session to notify',
  'prompts-get-simple': 'gets the fixture prompt test_simple_prompt',
  'prompts-get-with-args': 'gets the fixture prompt test_prompt_with_arguments',
  'prompts-get-embedded-resource': 'gets the fixture prompt test_prompt_with_embedded_resource',
  'prompts-get-with-image': 'gets the fixture prompt test_prompt_with_image',
};

/** How a scenario that does not apply is refused (the suite's messages around the server's JSON-RPC errors). */
const EXPECTED_REFUSAL =
  /MCP error -32602: |MCP error -32601: Method not found|Tool '\w+' not found\. Available tools|Server did not provide session ID/;

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
  details?: { message?: string };
}

/** What a check says went wrong (the suite puts a warning's reason in its details). */
const why = (c: Check) => c.errorMessage ?? c.details?.message ?? '';

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A child process, asynchronously: the bridge it talks to runs in this process and must keep answering. */
function run(
  file: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { cwd: opts.cwd ?? ROOT, env: opts.env ?? process.env, timeout: opts.timeoutMs, maxBuffer: 32 << 20 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The suite writes `<out>/server-<scenario>-<timestamp>/checks.json` per scenario. */
function readResults(outDir: string): Map<string, Check[]> {
  const results = new Map<string, Check[]>();
  for (const dir of readdirSync(outDir)) {
    const m = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(dir);
    if (!m) continue;
    results.set(m[1]!, JSON.parse(readFileSync(path.join(outDir, dir, 'checks.json'), 'utf8')) as Check[]);
  }
  return results;
}

/** The inspector CLI in `--cli` mode (its JSON answer on stdout), under the tools' Node 24. */
async function inspector(url: string, key: string, method: string, extra: string[] = []): Promise<unknown> {
  const r = await run(
    NODE24,
    [
      INSPECTOR_CLI,
      '--cli',
      url,
      '--transport',
      'http',
      '--header',
      `Authorization: Bearer ${key}`,
      '--method',
      method,
      ...extra,
    ],
    {
      // The wrapper starts its worker as `node …/index.js`: that `node` is the tools' Node 24, on the PATH of this
      // child only. The worker looks for `../package.json` from its working directory (and imports it relative to
      // its own file), so it runs from its own build folder.
      cwd: path.dirname(INSPECTOR_CLI),
      env: { ...process.env, PATH: `${path.dirname(NODE24)}${path.delimiter}${process.env.PATH ?? ''}` },
      timeoutMs: scaled(30_000),
    },
  );
  expect(r.code, `inspector ${method}: ${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout) as unknown;
}

let bridge: BridgeForTests;
let proxy: BearerProxy;
let proposeKey: string;
let readKey: string;
let outDir: string;

beforeAll(async () => {
  // npm test's set-up step (scripts/test-setup.ts) installs the tools; this covers a single file run by hand
  ensureConformanceTools();
  proxy = await startBearerProxy(() => ({ baseUrl: bridge.baseUrl, key: proposeKey }));
  bridge = await startBridgeForTests({
    now: '2026-11-20T09:00:00Z',
    databasePrefix: 'mcp_conformance',
    // the origin the suite's DNS-rebinding scenario sends as the valid one (the proxy's); its other origin is not
    mcpAllowedOrigins: [proxy.baseUrl],
  });
  const demo = await bridge.seedDemo({ scopes: ['bridge:read', 'bridge:propose'] });
  proposeKey = demo.key;
  readKey = (await bridge.admin.createKey(demo.tenant.slug, ['bridge:read'], 'read only')).key;
  outDir = mkdtempSync(path.join(os.tmpdir(), 'mcp-conformance-'));
}, scaled(120_000));

afterAll(async () => {
  await proxy?.close();
  await bridge?.close();
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

describe('the MCP conformance suite (server scenarios, every suite)', () => {
  it('passes every scenario that applies to a stateless server, and classifies every scenario it has', async () => {
    const r = await run(
      NODE24,
      [CONFORMANCE_CLI, 'server', '--url', `${proxy.baseUrl}${MCP_PATH}`, '--suite', 'all', '-o', outDir],
      { timeoutMs: scaled(120_000) },
    );
    const results = readResults(outDir);
    expect(results.size, `the suite ran nothing:\n${r.stdout}\n${r.stderr}`).toBeGreaterThan(0);
    expect(proxy.forwarded).toBeGreaterThan(0);

    // a new version of the suite brings new scenarios: each must be classified here (and in docs/mcp.md)
    expect([...results.keys()].sort()).toEqual([...APPLIES, ...Object.keys(DOES_NOT_APPLY)].sort());

    const failing = APPLIES.flatMap((scenario) =>
      results
        .get(scenario)!
        .filter((c) => c.status === 'FAILURE' || c.status === 'WARNING')
        .map((c) => `${scenario}: ${c.id} ${c.status} ${why(c)}`),
    );
    expect(failing).toEqual([]);
    for (const scenario of APPLIES) {
      expect(
        results.get(scenario)!.some((c) => c.status === 'SUCCESS'),
        `${scenario} passed a check`,
      ).toBe(true);
    }

    // The others fail, but as the protocol says they should: an unknown tool, prompt or resource is -32602, a
    // capability the server does not declare -32601, and the session scenarios find no session; never an HTTP
    // error, a dropped connection or a crash.
    const refusedOtherwise = Object.keys(DOES_NOT_APPLY).flatMap((scenario) =>
      results
        .get(scenario)!
        .filter((c) => c.status === 'FAILURE' || c.status === 'WARNING')
        .filter((c) => !EXPECTED_REFUSAL.test(why(c)))
        .map((c) => `${scenario}: ${c.id} ${c.status} ${why(c)}`),
    );
    expect(refusedOtherwise).toEqual([]);
  });

  it('is described scenario by scenario in docs/mcp.md', () => {
    const guide = readFileSync(path.join(ROOT, 'docs/mcp.md'), 'utf8');
    const missing = [...APPLIES, ...Object.keys(DOES_NOT_APPLY)].filter((s) => !guide.includes(`\`${s}\``));
    expect(missing).toEqual([]);
  });
});

describe('the MCP inspector CLI', () => {
  const url = () => `${bridge.baseUrl}${MCP_PATH}`;

  it('lists the tools a key may use: the proposals only with bridge:propose', async () => {
    const names = (key: string) =>
      inspector(url(), key, 'tools/list').then((r) =>
        (r as { tools: { name: string }[] }).tools.map((t) => t.name),
      );
    const [withPropose, readOnly] = [await names(proposeKey), await names(readKey)];
    expect(withPropose).toEqual(expect.arrayContaining(['get_portfolio', 'get_property', 'propose_deal']));
    expect(readOnly).toContain('get_portfolio');
    expect(readOnly.filter((n) => n.startsWith('propose_'))).toEqual([]);
  });

  it('calls get_portfolio and gets the page GET /portfolio answers', async () => {
    const result = (await inspector(url(), readKey, 'tools/call', [
      '--tool-name',
      'get_portfolio',
      '--tool-arg',
      'limit=3',
    ])) as { isError?: boolean; structuredContent: { properties: { ref: string }[]; as_of: string } };
    expect(result.isError ?? false).toBe(false);
    const rest = await fetch(`${bridge.baseUrl}/api/assistant-bridge/portfolio?limit=3`, {
      headers: { authorization: `Bearer ${readKey}` },
    });
    expect(rest.status).toBe(200);
    const page = (await rest.json()) as { as_of: string };
    expect({ ...result.structuredContent, as_of: '' }).toEqual({ ...page, as_of: '' });
    expect(result.structuredContent.properties).toHaveLength(3);
  });
});
