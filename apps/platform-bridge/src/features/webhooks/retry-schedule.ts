// When a failed delivery is tried again: about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 24 h after the
// failures before, each ±20 % so that the retries of many deliveries that failed together (a receiver's outage)
// do not all arrive at once when it comes back. After the last one the delivery is failed; the CLI can redeliver.
export const RETRY_DELAYS_MS = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  24 * 3_600_000,
] as const;

/** The most attempts one delivery gets: the first and one per retry. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/**
 * The wait before the next attempt after `attempts` attempts have failed, or null when none is left.
 * `random` is a number in [0, 1) (Math.random by default; tests pass a fixed one).
 */
export function retryDelayMs(attempts: number, random: () => number = Math.random): number | null {
  const base = RETRY_DELAYS_MS[attempts - 1];
  if (base === undefined) return null;
  return Math.round(base * (0.8 + 0.4 * random()));
}
