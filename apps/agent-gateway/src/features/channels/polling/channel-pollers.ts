import type { Update } from 'grammy/types';
import type { Logger } from 'pino';
import { startTelegramPoller, type TelegramPoller } from '../telegram/telegram-poller.ts';
import type { PollLease, PollLocks } from './poll-locks.ts';
import type { PollingChannel, PollingChannels } from './polling-channels.ts';

// Runs one poller per polling-mode Telegram channel that this process holds the lock of. A rescan every few
// seconds picks up channels connected, deleted, failed or released by another process meanwhile: simpler than a
// notification, and a crashed process's channels are taken over by the same path once its lock expires.

export interface ChannelPollersDeps {
  channels: PollingChannels;
  locks: PollLocks;
  /** the bot token, from the channel's encrypted secrets */
  tokenOf(channel: PollingChannel): string;
  /** takes one update in (the conversation records its key and ignores a repeat) */
  handle(channel: PollingChannel, update: Update): Promise<void>;
  /** TELEGRAM_API_BASE_URL */
  apiRoot: string;
  logger: Logger;
  scanMs?: number;
  pollTimeoutS?: number;
  minBackoffMs?: number;
}

export interface ChannelPollers {
  /** one scan now (tests; the periodic scan runs anyway) */
  scan(): Promise<void>;
  /** ids of the channels this process polls */
  active(): string[];
  /** stops every poller (the long polls are aborted at once) and releases their locks */
  stop(): Promise<void>;
}

interface Running {
  poller: TelegramPoller;
  lease: PollLease;
}

export function startChannelPollers(deps: ChannelPollersDeps): ChannelPollers {
  const { logger } = deps;
  const running = new Map<string, Running>();
  let stopped = false;
  let scanning: Promise<void> = Promise.resolve();

  async function stopOne(id: string, r: Running): Promise<void> {
    await r.poller.stop();
    await r.lease.release();
    if (running.get(id) === r) running.delete(id);
  }

  async function start(channel: PollingChannel): Promise<void> {
    const lease = await deps.locks.acquire(channel.id);
    if (!lease) return;
    if (stopped) return lease.release();
    let token: string;
    let offset: bigint | null;
    try {
      token = deps.tokenOf(channel);
      offset = await deps.channels.offset(channel.workerId, channel.id);
    } catch (err) {
      await lease.release();
      throw err;
    }
    const poller = startTelegramPoller({
      channelId: channel.id,
      token,
      apiRoot: deps.apiRoot,
      offset,
      handle: (update) => deps.handle(channel, update),
      saveOffset: async (next) => {
        await deps.channels.saveOffset(channel.workerId, channel.id, next);
      },
      fail: async (reason) => {
        await deps.channels.markError(channel.workerId, channel.id, reason);
      },
      logger,
      pollTimeoutS: deps.pollTimeoutS,
      minBackoffMs: deps.minBackoffMs,
    });
    const entry: Running = { poller, lease };
    running.set(channel.id, entry);
    lease.lost.addEventListener('abort', () => void stopOne(channel.id, entry));
    // a poller that ended by itself (the channel failed) gives its lock back
    void poller.done.then(async () => {
      if (running.get(channel.id) !== entry) return;
      running.delete(channel.id);
      await lease.release();
    });
    logger.info({ channel_id: channel.id, worker_id: channel.workerId }, 'Telegram polling started');
  }

  async function scanOnce(): Promise<void> {
    if (stopped) return;
    const channels = await deps.channels.list();
    const wanted = new Set(channels.map((c) => c.id));
    const gone = [...running].filter(([id]) => !wanted.has(id));
    await Promise.all(
      gone.map(async ([id, r]) => {
        await stopOne(id, r);
        logger.info({ channel_id: id }, 'Telegram polling stopped: the channel was deleted or changed');
      }),
    );
    for (const channel of channels) {
      if (stopped) return;
      if (running.has(channel.id)) continue;
      await start(channel).catch((err: unknown) => {
        logger.error(
          { channel_id: channel.id, error: err instanceof Error ? err.message : String(err) },
          'Telegram polling could not start',
        );
      });
    }
  }

  // scans never overlap: a slow database delays the next one instead of starting a poller twice
  const scan = () => {
    scanning = scanning.then(scanOnce).catch((err: unknown) => {
      logger.error({ error: err instanceof Error ? err.message : String(err) }, 'channel scan failed');
    });
    return scanning;
  };
  void scan();
  const timer = setInterval(() => void scan(), deps.scanMs ?? 5000);
  timer.unref();

  return {
    scan,
    active: () => [...running.keys()],
    async stop() {
      stopped = true;
      clearInterval(timer);
      await scanning;
      await Promise.all([...running].map(([id, r]) => stopOne(id, r)));
    },
  };
}
