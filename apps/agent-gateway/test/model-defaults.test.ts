import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig, REPO_ROOT } from '../src/config.ts';
import { DEFAULT_ANTHROPIC_MODEL, DEFAULT_OPENAI_MODEL } from '../src/features/providers/model-defaults.ts';
import { EMPTY_TOOLBOX } from '../src/features/tools/toolbox.ts';
import { providersFromConfig } from '../src/features/providers/provider-registry.ts';
import { type FakeAnthropic, startFakeAnthropic } from './support/fake-anthropic.ts';
import { type FakeOpenAI, startFakeOpenAI } from './support/fake-openai.ts';

// The vendor models used when OPENAI_MODEL / ANTHROPIC_MODEL are unset (issue 30): named once, sent as such, and
// not one the vendor's SDK calls deprecated.

const KEY = 'sk-test-Secr3tKeyValue-0123456789abcdef';

async function replyOf(config: ReturnType<typeof loadConfig>, provider: string): Promise<string> {
  let text = '';
  const turn = {
    messages: [{ role: 'user' as const, content: 'Hello' }],
    tools: EMPTY_TOOLBOX,
    signal: new AbortController().signal,
  };
  for await (const delta of providersFromConfig(config).get(provider).stream(turn)) text += delta;
  return text;
}

describe('model defaults', () => {
  let anthropic: FakeAnthropic;
  let openai: FakeOpenAI;
  beforeAll(async () => {
    [anthropic, openai] = await Promise.all([startFakeAnthropic(), startFakeOpenAI()]);
  });
  afterAll(async () => {
    await Promise.all([anthropic?.close(), openai?.close()]);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('are the configuration defaults, and what the providers send', async () => {
    const config = loadConfig({
      OPENAI_API_KEY: KEY,
      OPENAI_BASE_URL: openai.url,
      ANTHROPIC_API_KEY: KEY,
      ANTHROPIC_BASE_URL: anthropic.url,
    });
    expect(config.OPENAI_MODEL).toBe(DEFAULT_OPENAI_MODEL);
    expect(config.ANTHROPIC_MODEL).toBe(DEFAULT_ANTHROPIC_MODEL);
    anthropic.script({ chunks: ['Hi'] });
    openai.script({ chunks: ['Hi'] });
    expect(await replyOf(config, 'anthropic')).toBe('Hi');
    expect(await replyOf(config, 'openai')).toBe('Hi');
    expect(anthropic.requests.at(-1)!.body).toMatchObject({ model: DEFAULT_ANTHROPIC_MODEL });
    expect(openai.requests.at(-1)!.body).toMatchObject({ model: DEFAULT_OPENAI_MODEL });
  });

  it('another model is chosen with ANTHROPIC_MODEL / OPENAI_MODEL', () => {
    const config = loadConfig({ OPENAI_MODEL: 'gpt-5.5', ANTHROPIC_MODEL: 'claude-opus-5-5' });
    expect([config.OPENAI_MODEL, config.ANTHROPIC_MODEL]).toEqual(['gpt-5.5', 'claude-opus-5-5']);
  });

  // @anthropic-ai/sdk prints a console warning for each request to a model it lists as deprecated (the reason for
  // leaving claude-sonnet-4-5); the old default shows that the check sees the warning.
  it('the Anthropic default draws no deprecation warning from the SDK, unlike the old default', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const deprecations = () => warn.mock.calls.filter((c) => /deprecated/i.test(String(c[0])));
    const config = (model?: string) =>
      loadConfig({ ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: anthropic.url, ANTHROPIC_MODEL: model });

    anthropic.script({ chunks: ['ok'] });
    await replyOf(config(), 'anthropic');
    expect(deprecations()).toEqual([]);

    anthropic.script({ chunks: ['ok'] });
    await replyOf(config('claude-sonnet-4-5'), 'anthropic');
    expect(deprecations()).toHaveLength(1);
  });

  it('.env.example and the configuration docs quote them', () => {
    const example = readFileSync(path.join(REPO_ROOT, '.env.example'), 'utf8');
    expect(example).toContain(`\nOPENAI_MODEL=${DEFAULT_OPENAI_MODEL}\n`);
    expect(example).toContain(`\nANTHROPIC_MODEL=${DEFAULT_ANTHROPIC_MODEL}\n`);
    const docs = readFileSync(path.join(REPO_ROOT, 'docs/configuration.md'), 'utf8');
    expect(docs).toContain(`OpenAI, \`${DEFAULT_OPENAI_MODEL}\``);
    expect(docs).toContain(`Anthropic, \`${DEFAULT_ANTHROPIC_MODEL}\``);
  });
});
