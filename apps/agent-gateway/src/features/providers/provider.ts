import { type AppError, BadGateway, ServiceUnavailable } from '@pa/http-kit';
import type { Toolbox } from '../tools/toolbox.ts';

// What every chat provider implements. A provider turns the conversation into a stream of text deltas; it
// may call tools on the way (the worker's platform tools) and must stop promptly when `signal` aborts.

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ProviderTurn {
  /** system prompt first, then the session's recent turns, ending with the user's new message */
  messages: ChatMessage[];
  tools: Toolbox;
  signal: AbortSignal;
}

export interface ChatProvider {
  readonly name: string;
  readonly model: string;
  /** Yields content deltas. Throws ProviderError on a vendor failure; rejects with an AbortError when aborted. */
  stream(turn: ProviderTurn): AsyncIterable<string>;
}

/** A failure of the provider (vendor error, bad response); shown to the user in words, never with secrets. */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly code: 'provider-error' | 'provider-unavailable' | 'provider-rate-limited' = 'provider-error',
  ) {
    super(message);
  }
}

/**
 * The error kind a provider failure is to the caller: the vendor's own rate limit means we cannot answer for now
 * (503); anything else is an upstream that failed us (502). Given to problemHandler as its `translate`.
 */
export function providerErrorKind(err: unknown): AppError | undefined {
  if (!(err instanceof ProviderError)) return undefined;
  const opts = { title: 'Provider error', cause: err };
  return err.code === 'provider-rate-limited'
    ? new ServiceUnavailable(err.code, err.message, undefined, opts)
    : new BadGateway(err.code, err.message, opts);
}

export function isAbortError(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || err.name === 'APIUserAbortError');
}
