// What `npm start` says while it works: one human line per step as it happens, on stderr (stdout carries the apps'
// logs, which a pipe may be collecting as JSON). A step that takes long says so every 30 s rather than leaving the
// screen silent; a step that fails says what failed and what to do, and `npm start` exits non-zero.

export class StepFailure extends Error {
  constructor(
    readonly step: string,
    message: string,
    /** what the user can do about it, one or more lines */
    readonly hint: string,
  ) {
    super(message);
  }
}

export interface Progress {
  /** runs one step: its label first, then "✓ label: detail" or the failure */
  step<T>(label: string, run: () => Promise<T>, done?: (value: T) => string): Promise<T>;
  /** a line of its own (a migration applied, a waiting note) under the running step */
  note(line: string): void;
}

const STILL_WAITING_EVERY_MS = 30_000;

export function createProgress(opts: {
  write: (line: string) => void;
  colour: boolean;
  /** test hook: each step waits this long first (DEMO makes a slow machine's start testable) */
  delayMs?: number;
}): Progress {
  const paint = (code: number, text: string) => (opts.colour ? `\x1b[${code}m${text}\x1b[0m` : text);
  const ok = paint(32, '✓');
  const bad = paint(31, '✗');
  const dot = paint(2, '…');
  return {
    async step(label, run, done) {
      opts.write(`${dot} ${label}`);
      const started = Date.now();
      const ticker = setInterval(
        () => opts.write(`  still ${label.toLowerCase()} (${Math.round((Date.now() - started) / 1000)} s)`),
        STILL_WAITING_EVERY_MS,
      );
      ticker.unref();
      try {
        if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
        const value = await run();
        const detail = done?.(value);
        const secs = ((Date.now() - started) / 1000).toFixed(1);
        opts.write(`${ok} ${label}${detail ? `: ${detail}` : ''} (${secs} s)`);
        return value;
      } catch (err) {
        const failure =
          err instanceof StepFailure
            ? err
            : new StepFailure(label, err instanceof Error ? err.message : String(err), '');
        opts.write(`${bad} ${label} failed: ${failure.message}`);
        if (failure.hint) for (const line of failure.hint.split('\n')) opts.write(`  ${line}`);
        throw failure;
      } finally {
        clearInterval(ticker);
      }
    },
    note(line) {
      opts.write(`  ${line}`);
    },
  };
}
