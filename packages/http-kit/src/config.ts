import { z } from 'zod';

// Environment parsing shared by both apps: a zod schema, every problem reported at once, one line each.

export class ConfigError extends Error {}

export function parseEnv<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv): Readonly<z.output<S>> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return Object.freeze(parsed.data);
}

/** For a process entry point: an invalid configuration prints its problems and exits 1, without a stack. */
export function loadOrExit<T>(load: () => T): T {
  try {
    return load();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
}

/** `true`/`false` (or 1/0); unset or empty means `fallback`. */
export const envFlag = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', ''])
    .optional()
    .transform((v) => (v === undefined || v === '' ? fallback : v === 'true' || v === '1'));

/**
 * LOG_LEVEL: pino's levels; unset or empty means info. Every warning and error shows at info, while the routine
 * request lines (polls, probes, static files) need debug.
 */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const logLevelSetting = z.preprocess(
  (v) => (v === '' || v === undefined ? 'info' : v),
  z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }),
);

/** An empty variable counts as unset. */
export const emptyIsUnset = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === '' ? undefined : v), schema.optional());
