// A job of the process that runs at start and then every `everyMs` (the bridge's compliance rollup refresher and
// proposal sweep, the gateway's answering of orphaned channel messages): one run at a time (a tick while one runs
// joins it), a failure logged and tried again at the next tick, and a stop that waits for a run in progress so that
// shutdown never cuts one off.

export interface PeriodicTask {
  /** Runs now, or joins the run in progress; resolves when it is over. */
  tick(): Promise<void>;
  /** Stops the timer and waits for a run in progress. */
  stop(): Promise<void>;
}

export function startPeriodicTask(opts: {
  everyMs: number;
  run: () => Promise<void>;
  onError: (err: unknown) => void;
}): PeriodicTask {
  let running: Promise<void> | undefined;

  function tick(): Promise<void> {
    running ??= (async () => {
      try {
        await opts.run();
      } catch (err) {
        opts.onError(err);
      } finally {
        running = undefined;
      }
    })();
    return running;
  }

  void tick();
  const timer = setInterval(() => void tick(), opts.everyMs);
  timer.unref();
  return {
    tick,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
