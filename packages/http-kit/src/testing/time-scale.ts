// Deadlines in tests say "this never happens", not "this is fast": on a loaded machine (the other test files, other
// jobs on a CI host, a CPU hog) the same work takes several times longer, and a deadline sized for an idle machine
// fails a correct test. So every deadline the shared helpers set is written at an idle machine's scale and
// stretched by the load measured when it is set. A test that asserts speed says so on its own (and may use it too).
import os from 'node:os';

/** At most this many times the idle deadline: a hang still fails in minutes, not hours. */
const MAX_SCALE = 8;

/**
 * How much longer than on an idle machine things take now: TEST_TIME_SCALE when set, else the runnable processes
 * per CPU over the last minute (the load average), at least 1.
 */
export function timeScale(): number {
  const fixed = Number(process.env.TEST_TIME_SCALE);
  if (fixed > 0) return fixed;
  const perCpu = os.loadavg()[0]! / os.availableParallelism();
  return Math.min(MAX_SCALE, Math.max(1, perCpu));
}

/** `ms` (a deadline sized for an idle machine) stretched by the current load. */
export function scaled(ms: number): number {
  return Math.round(ms * timeScale());
}
