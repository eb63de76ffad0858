// Whether the platform still accepts a bound worker's key, as its bridge calls find out: a call answered 401 (the
// key revoked or unknown) marks the binding refused, so that Settings says so in words; a call the key passes
// again clears the mark. The binding row was read for the call's credentials, so its state is known without a query:
// a write happens only when the state changes, never on an ordinary call.

/** A bound worker's tenant and opened key, for its bridge calls. */
export interface WorkerCredentials {
  tenantSlug: string;
  apiKey: string;
  /**
   * The bridge client for this key, watched: a call the platform refuses with 401 marks the binding refused (for
   * Settings), and one it accepts again clears the mark (watchKey). Every bridge call for a bound worker
   * goes through it.
   */
  watch<C extends object>(client: C): C;
}

/** The binding's state when its key was read, and how to record a change of it. */
export interface KeyState {
  refused: boolean;
  /** marks the binding refused (a no-op when it was rebound meanwhile) */
  recordRefused(): Promise<void>;
  /** clears the mark (a no-op when it was rebound meanwhile) */
  recordAccepted(): Promise<void>;
}

/** A 401 from the bridge: the client's BridgeError of kind `unauthorized` with the status (not a key never sent). */
function isKeyRefused(err: unknown): boolean {
  const e = err as { kind?: unknown; status?: unknown } | null;
  return err instanceof Error && e?.kind === 'unauthorized' && e.status === 401;
}

/**
 * The client with each of its methods watched: every method of a bridge client is async, so each is wrapped to
 * look at its outcome. The state is shared by the calls made through this client (a turn's tools, a sync's pages),
 * so concurrent calls record a change once.
 */
export function watchKey<C extends object>(client: C, state: KeyState): C {
  const watched: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(client)) {
    if (typeof value !== 'function') {
      watched[name] = value;
      continue;
    }
    const method = value as (...args: unknown[]) => Promise<unknown>;
    watched[name] = async (...args: unknown[]) => {
      let result: unknown;
      try {
        result = await method.apply(client, args);
      } catch (err) {
        if (!state.refused && isKeyRefused(err)) {
          state.refused = true;
          await state.recordRefused();
        }
        throw err;
      }
      if (state.refused) {
        state.refused = false;
        await state.recordAccepted();
      }
      return result;
    };
  }
  return watched as C;
}
