import type { ChatModel as OpenAIModel } from 'openai/resources/shared';

// The models the vendor providers use when OPENAI_MODEL / ANTHROPIC_MODEL are unset, named here only (config.ts and
// the tests import them; .env.example and the README quote them). Each is the current model of the tier the
// previous default was in, so the cost of a default installation stays about the same:
// - Anthropic: Sonnet 5.5, after Sonnet 4.5, which @anthropic-ai/sdk 1.12 lists as deprecated (end of life
//   30 Nov 2026) and warns about on every request;
// - OpenAI: GPT-5.4 mini, after gpt-4o-mini, the newest generally available "mini" in openai 6.49's ChatModel.
// Review both whenever the SDKs are upgraded (their changelogs name new and deprecated models).
// Anthropic's model type accepts any string, so test/model-defaults.test.ts checks that its SDK does not warn about
// the default; OpenAI's is a closed list, so `satisfies` fails the type check should the SDK stop naming it.
export const DEFAULT_ANTHROPIC_MODEL = 'claude-sonnet-5-5';
export const DEFAULT_OPENAI_MODEL = 'gpt-5.4-mini' satisfies OpenAIModel;
