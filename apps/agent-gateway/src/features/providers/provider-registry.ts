import { ValidationFailed } from '@pa/http-kit';
import type { Config } from '../../config.ts';
import { createAnthropicProvider } from './anthropic-provider.ts';
import { createLocalProvider } from './local/local-provider.ts';
import { createOpenAIProvider } from './openai-provider.ts';
import type { ChatProvider } from './provider.ts';

export interface ProviderRegistry {
  names(): string[];
  defaultName: string;
  get(name: string): ChatProvider;
  has(name: string): boolean;
}

export function createProviderRegistry(providers: ChatProvider[], defaultName: string): ProviderRegistry {
  const byName = new Map(providers.map((p) => [p.name, p]));
  if (!byName.has(defaultName)) throw new Error(`default provider ${defaultName} is not configured`);
  return {
    names: () => [...byName.keys()],
    defaultName,
    has: (name) => byName.has(name),
    get(name) {
      const p = byName.get(name);
      if (!p) {
        throw new ValidationFailed(
          [{ pointer: '#/provider', detail: `must be one of ${[...byName.keys()].join(', ')}` }],
          `No provider named "${name}".`,
          { code: 'unknown-provider', title: 'Unknown provider' },
        );
      }
      return p;
    },
  };
}

/** The providers the configuration makes available: `local` always, vendors when configured. */
export function providersFromConfig(config: Config): ProviderRegistry {
  const providers: ChatProvider[] = [createLocalProvider({ delayMs: config.LOCAL_PROVIDER_DELAY_MS })];
  if (config.OPENAI_API_KEY || config.OPENAI_BASE_URL) {
    providers.push(
      createOpenAIProvider({
        apiKey: config.OPENAI_API_KEY,
        baseURL: config.OPENAI_BASE_URL,
        model: config.OPENAI_MODEL,
        timeoutMs: config.PROVIDER_TIMEOUT_MS,
      }),
    );
  }
  if (config.ANTHROPIC_API_KEY) {
    providers.push(
      createAnthropicProvider({
        apiKey: config.ANTHROPIC_API_KEY,
        baseURL: config.ANTHROPIC_BASE_URL,
        model: config.ANTHROPIC_MODEL,
        timeoutMs: config.PROVIDER_TIMEOUT_MS,
      }),
    );
  }
  return createProviderRegistry(providers, config.PROVIDER);
}
