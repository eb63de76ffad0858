// Cancellation without sessions. A client cancels a call by sending `notifications/cancelled` naming the call's
// JSON-RPC id; on a stateless server that notification arrives in a POST of its own, handled by another server
// instance than the call's. So the calls in flight in this process are kept here by key and request id, and the
// notification reaches the right one. Request ids are chosen by each client (they start at 0), so two clients of
// one key may both have a call 3 in flight: an id the key has more than once in flight is ambiguous, and nothing
// is cancelled rather than the wrong call. Cancelling stops the whole HTTP request the call came in (its server is
// closed): for a batch, its other calls too. (Another instance behind a load balancer never sees the notification:
// the call runs to its end, as when a notification is lost.)

export interface CallRegistry {
  /** Tracks a call in flight until the returned function is called; `cancel` stops it. */
  track(keyId: number, requestId: string | number, cancel: (reason: string | undefined) => void): () => void;
  /** Cancels the key's call with this id; false when there is none, or more than one. */
  cancel(keyId: number, requestId: string | number, reason: string | undefined): boolean;
}

export function createCallRegistry(): CallRegistry {
  const inFlight = new Map<string, Set<(reason: string | undefined) => void>>();
  // the id's type is part of it: 3 and "3" are two ids
  const keyOf = (keyId: number, requestId: string | number) => `${keyId}:${typeof requestId}:${requestId}`;
  return {
    track(keyId, requestId, cancel) {
      const k = keyOf(keyId, requestId);
      let calls = inFlight.get(k);
      if (!calls) inFlight.set(k, (calls = new Set()));
      calls.add(cancel);
      return () => {
        calls.delete(cancel);
        if (calls.size === 0 && inFlight.get(k) === calls) inFlight.delete(k);
      };
    },
    cancel(keyId, requestId, reason) {
      const calls = inFlight.get(keyOf(keyId, requestId));
      if (!calls || calls.size !== 1) return false;
      for (const cancel of calls) cancel(reason);
      return true;
    },
  };
}
