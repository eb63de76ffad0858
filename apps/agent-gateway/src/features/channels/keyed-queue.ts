// Tasks with the same key run one after another, in the order they were queued; different keys run side by side.
// A chat's updates are handled in order this way, while other chats are not held up. A key is forgotten when its
// last task ends, so the map holds only chats with work in flight.
export function createKeyedQueue() {
  const tails = new Map<string, Promise<unknown>>();
  return {
    run<T>(key: string, task: () => Promise<T>): Promise<T> {
      const previous = tails.get(key) ?? Promise.resolve();
      const result = previous.then(task, task);
      const tail = result.then(
        () => undefined,
        () => undefined,
      );
      tails.set(key, tail);
      void tail.then(() => {
        if (tails.get(key) === tail) tails.delete(key);
      });
      return result;
    },
    /** how many keys have work queued or running */
    get size() {
      return tails.size;
    },
  };
}
export type KeyedQueue = ReturnType<typeof createKeyedQueue>;
