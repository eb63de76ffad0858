import { setTimeout as sleep } from 'node:timers/promises';
import { Api, GrammyError, HttpError } from 'grammy';
import type { Update } from 'grammy/types';
import type { Logger } from 'pino';

// One Telegram bot's long poll (docs/channels.md, polling mode). Updates are handed over one by one, in order, and the
// offset is stored past them, so that a restart resumes right after the last update taken in: never one twice
// (the conversation records each update key), never one skipped.

export interface TelegramPollerDeps {
  channelId: string;
  token: string;
  /** TELEGRAM_API_BASE_URL */
  apiRoot: string;
  /** the stored offset (null: the oldest update Telegram still holds) */
  offset: bigint | null;
  /** takes one update in; a rejection leaves the offset where it was, and the update comes again */
  handle(update: Update): Promise<void>;
  saveOffset(offset: bigint): Promise<void>;
  /** the bot cannot poll any more (token revoked, a webhook set): the channel goes to `error` with these words */
  fail(reason: string): Promise<void>;
  logger: Logger;
  /** the long poll's wait in seconds (Telegram's own limit is 50) */
  pollTimeoutS?: number;
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

export interface TelegramPoller {
  /** resolves when the loop has ended (stopped, or the channel failed) */
  readonly done: Promise<void>;
  /** aborts the long poll at once; an update being handed over is finished first */
  stop(): Promise<void>;
}

const FATAL: Record<number, string> = {
  401: 'Telegram refused the bot token (revoked or changed in BotFather): connect the bot again with a new token',
  409: 'Telegram refused to poll because a webhook is set on this bot (or another program polls it): remove it or connect in webhook mode',
};

export function startTelegramPoller(deps: TelegramPollerDeps): TelegramPoller {
  const { logger } = deps;
  const log = logger.child({ channel_id: deps.channelId });
  const pollTimeoutS = deps.pollTimeoutS ?? 30;
  // The URL of a failed call holds the token: the client's errors never carry it (sensitiveLogs is off) and
  // only their code and Telegram's description are logged. A long poll that outlives its own timeout by 15 s
  // hangs (a silent network): it is given up and retried.
  const api = new Api(deps.token, { apiRoot: deps.apiRoot, timeoutSeconds: pollTimeoutS + 15 });
  const minBackoff = deps.minBackoffMs ?? 1000;
  const maxBackoff = deps.maxBackoffMs ?? 60_000;
  const stopper = new AbortController();
  let offset = deps.offset;

  // waits that end early (false) when the poller is stopped
  const wait = (ms: number) =>
    sleep(ms, undefined, { signal: stopper.signal }).then(
      () => true,
      () => false,
    );

  async function loop(): Promise<void> {
    let failures = 0;
    while (!stopper.signal.aborted) {
      let updates: Update[];
      try {
        updates = await api.getUpdates(
          {
            ...(offset === null ? {} : { offset: Number(offset) }),
            timeout: pollTimeoutS,
            allowed_updates: ['message'],
          },
          // grammY types its signal with its abort-controller shim; Node's own is what it gets at run time
          stopper.signal as Parameters<Api['getUpdates']>[1],
        );
      } catch (err) {
        if (stopper.signal.aborted) return;
        if (err instanceof GrammyError && FATAL[err.error_code]) {
          log.warn({ error_code: err.error_code, description: err.description }, 'Telegram poller stopped');
          await deps.fail(FATAL[err.error_code]!);
          return;
        }
        failures += 1;
        const retryAfter = err instanceof GrammyError ? err.parameters.retry_after : undefined;
        // 429: exactly as long as Telegram asks; anything else: 1 s doubling to a minute, with jitter so that
        // many pollers coming back from one outage do not all call at the same instant
        const delay =
          retryAfter !== undefined
            ? retryAfter * 1000
            : jitter(Math.min(maxBackoff, minBackoff * 2 ** Math.min(failures - 1, 16)));
        log.warn(
          { ...describe(err), retry_in_ms: Math.round(delay), failures },
          'Telegram getUpdates failed',
        );
        if (!(await wait(delay))) return;
        continue;
      }
      if (failures > 0) log.info({ after_failures: failures }, 'Telegram getUpdates recovered');
      failures = 0;
      // Each update is handed over (recorded by the conversation) before the offset moves past it; the offset is
      // stored once per batch, after the last one handed over: a restart in between asks for the batch again,
      // and the recorded updates are recognised as repeats. So a restart neither skips nor repeats one. Once
      // taken from Telegram an update is handed over even when a stop comes meanwhile.
      let failed = false;
      let handed = offset;
      for (const update of updates) {
        try {
          await deps.handle(update);
          handed = BigInt(update.update_id) + 1n;
        } catch (err) {
          failed = true;
          log.error(
            { ...describe(err), update_id: update.update_id },
            'a Telegram update could not be handled',
          );
          break;
        }
      }
      if (handed !== offset && handed !== null) {
        offset = handed;
        // not stored (the database away): the updates are recorded, so asking again after a restart is harmless
        await deps.saveOffset(offset).catch((err: unknown) => {
          log.error(describe(err), 'the Telegram poll offset could not be stored');
        });
      }
      if (failed) {
        failures += 1;
        if (!(await wait(jitter(Math.min(maxBackoff, minBackoff * 2 ** Math.min(failures - 1, 16)))))) return;
      }
    }
  }

  const done = loop().catch((err: unknown) => {
    log.error(describe(err), 'Telegram poller ended unexpectedly');
  });
  return {
    done,
    async stop() {
      stopper.abort();
      await done;
    },
  };
}

/** between half and all of `ms` */
function jitter(ms: number): number {
  return ms / 2 + Math.random() * (ms / 2);
}

/** an error in words fit for a log line: never the request URL (which holds the token) */
export function describe(err: unknown): Record<string, unknown> {
  if (err instanceof GrammyError) return { error_code: err.error_code, error: err.description };
  if (err instanceof HttpError) {
    const cause = err.error as { code?: unknown; cause?: { code?: unknown } } | undefined;
    return { error: err.message, code: cause?.code ?? cause?.cause?.code };
  }
  return { error: err instanceof Error ? err.message : String(err) };
}
