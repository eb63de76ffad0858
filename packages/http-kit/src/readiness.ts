// `/readyz`'s look at a dependency. A probe has a deadline of its own (a compose healthcheck allows 5 s, Kubernetes
// 1 s by default), so the check answers "unavailable" once this one passes instead of letting the probe time out
// waiting on, say, a database that accepts connections and never answers.

/** How long `/readyz` waits for a dependency's answer. */
export const READINESS_DEADLINE_MS = 2_000;

export async function checkWithin(
  check: () => Promise<unknown>,
  ms = READINESS_DEADLINE_MS,
): Promise<'ok' | 'unavailable'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'unavailable'>((resolve) => {
    timer = setTimeout(() => resolve('unavailable'), ms);
  });
  try {
    return await Promise.race([
      check().then(
        () => 'ok' as const,
        () => 'unavailable' as const,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
