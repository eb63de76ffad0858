import type { Logger } from 'pino';
import type { Clock } from '../../lib/clock.ts';
import type { McpAuditLine, McpAuditRepository } from './mcp-audit-repository.ts';

// One audit line per MCP tool call, written after the answer and in batches: a statement per call would put a
// write on every read's path, which the REST reads do not carry (the bench compares the two). A batch goes when
// FLUSH_AFTER_MS have passed since its first line or when it is full; main.ts flushes what is left at shutdown,
// so only a crash loses the lines of its last fraction of a second. The writer also keeps the table bounded:
// once an hour it deletes a batch of lines older than the retention, and again at each flush while batches come
// back full, so that a backlog (a long pause, a busy hour) drains instead of growing by the hour.

export const MCP_AUDIT_RETENTION_DAYS = 90;
const FLUSH_AFTER_MS = 200;
const BATCH_MAX = 500;
const PRUNE_EVERY_MS = 3_600_000;
const PRUNE_BATCH = 10_000;

export interface McpAuditWriter {
  record(line: McpAuditLine): void;
  /** Writes every line recorded so far; resolves once they are stored (or their failure is logged). */
  flush(): Promise<void>;
}

export function createMcpAuditWriter(deps: {
  repository: McpAuditRepository;
  clock: Clock;
  logger: Logger;
  retentionDays?: number;
  /** lines deleted per prune (PRUNE_BATCH); tests lower it */
  pruneBatch?: number;
}): McpAuditWriter {
  const { repository, clock, logger } = deps;
  const retentionMs = (deps.retentionDays ?? MCP_AUDIT_RETENTION_DAYS) * 86_400_000;
  const pruneBatch = deps.pruneBatch ?? PRUNE_BATCH;
  let pending: McpAuditLine[] = [];
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  let lastPrune = Number.NEGATIVE_INFINITY;

  async function write(lines: McpAuditLine[]): Promise<void> {
    try {
      await repository.insert(lines);
      const now = clock.now();
      if (now.getTime() - lastPrune >= PRUNE_EVERY_MS) {
        const previous = lastPrune;
        // set before the prune, so that a failing prune is tried again in an hour, not at every flush
        lastPrune = now.getTime();
        const deleted = await repository.prune(new Date(now.getTime() - retentionMs), pruneBatch);
        // a full batch may have left older lines behind: prune again at the next flush
        if (deleted >= pruneBatch) lastPrune = previous;
      }
    } catch (err) {
      logger.warn({ err, lines: lines.length }, 'could not store MCP audit lines');
    }
  }

  function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (pending.length > 0) {
      const lines = pending;
      pending = [];
      // one batch at a time, in order
      writing = writing.then(() => write(lines));
    }
    return writing;
  }

  return {
    record(line) {
      pending.push(line);
      if (pending.length >= BATCH_MAX) void flush();
      else if (!timer) {
        timer = setTimeout(() => void flush(), FLUSH_AFTER_MS);
        timer.unref();
      }
    },
    flush,
  };
}
