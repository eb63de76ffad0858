import type { Response } from 'express';
import type { Logger } from 'pino';

// Revocation must reach requests already past the access check: an open event stream (/api/chat/stream, or any
// other) would otherwise go on serving a revoked device. Every response of a device is tracked until it
// finishes; revoking the device cuts its responses on this instance at once. Other instances learn of it by
// polling: while any device's responses are open here, the revoked ones among them are looked up every
// `pollMs` (one indexed query; no poll at all while none are open), so a revocation reaches every instance's
// streams within that time whatever Redis is doing.

export interface OpenResponses {
  track(deviceId: string, res: Response): void;
  /** cuts every open response of the device on this instance */
  closeDevice(deviceId: string): number;
  stop(): void;
}

export function createOpenResponses(deps: {
  revokedAmong: (ids: string[]) => Promise<string[]>;
  pollMs: number;
  logger: Logger;
}): OpenResponses {
  const open = new Map<string, Set<Response>>();
  let timer: NodeJS.Timeout | undefined;

  function closeDevice(deviceId: string): number {
    const responses = open.get(deviceId);
    if (!responses) return 0;
    open.delete(deviceId);
    for (const res of responses) res.destroy();
    deps.logger.info(
      { device_id: deviceId, closed: responses.size },
      'revoked device: open responses closed',
    );
    return responses.size;
  }

  async function poll() {
    try {
      const revoked = await deps.revokedAmong([...open.keys()]);
      for (const id of revoked) closeDevice(id);
    } catch (err) {
      deps.logger.warn({ err }, 'could not check open responses for revoked devices');
    }
    timer = open.size ? setTimeout(poll, deps.pollMs).unref() : undefined;
  }

  return {
    track(deviceId, res) {
      let set = open.get(deviceId);
      if (!set) open.set(deviceId, (set = new Set()));
      set.add(res);
      res.on('close', () => {
        const s = open.get(deviceId);
        s?.delete(res);
        if (s && !s.size) open.delete(deviceId);
      });
      timer ??= setTimeout(poll, deps.pollMs).unref();
    },
    closeDevice,
    stop() {
      clearTimeout(timer);
      open.clear();
    },
  };
}
