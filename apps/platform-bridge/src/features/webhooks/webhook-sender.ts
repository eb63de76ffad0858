import { randomUUID } from 'node:crypto';
import { inSpanContinuing } from '@pa/telemetry';
import type { Logger } from 'pino';
import type { Clock } from '../../lib/clock.ts';
import { systemClock } from '../../lib/clock.ts';
import type { StatementRunner } from '../../lib/db.ts';
import { createDeliveryStatements, type ClaimedDelivery } from './delivery-statements.ts';
import { type AddressPolicy, EndpointRefused, parseEndpointUrl, vetAddresses } from './endpoint-address.ts';
import { retryDelayMs } from './retry-schedule.ts';
import { type AttemptOutcome, sendSigned } from './signed-request.ts';
import { decryptSecret } from './webhook-secret.ts';

// The platform process's sender (docs/bridge-api.md). It is woken by a NOTIFY after each commit that wrote deliveries,
// by a timer set for the next retry that falls due, and by a slow safety poll; it then claims due deliveries
// in small batches and keeps up to `concurrency` requests in flight. Several senders (processes) share the work
// through the claim's row locks; a sender that dies leaves leases that run out, and the delivery is sent again
// with the same webhook-id.

/** Something that calls `onNotify` when deliveries were committed (LISTEN/NOTIFY); returns its stop. */
export type DeliveryWakeups = (onNotify: () => void) => Promise<() => Promise<void>>;

export interface WebhookSenderOptions {
  statements: StatementRunner;
  secretKey: Buffer;
  policy: AddressPolicy;
  logger: Logger;
  /** schedules retries and leases; tests move it instead of waiting */
  clock?: Clock;
  /** the `webhook-timestamp` of each attempt: the real time, which receivers compare with their own */
  signingClock?: Clock;
  wakeups?: DeliveryWakeups;
  /** a request that has not finished by then fails (WEBHOOK_TIMEOUT_MS, 15 s by default) */
  timeoutMs?: number;
  concurrency?: number;
  /** how long a claim holds a delivery; must exceed the timeout so that no other sender takes it while it is sent */
  leaseMs?: number;
  /** the safety poll, for a missed notification */
  pollMs?: number;
  /** jitter source for the retry schedule */
  random?: () => number;
  /** told how each attempt ended (the metrics); `gone`: the endpoint answered 410 and was disabled */
  onAttempt?: ((outcome: 'succeeded' | 'retrying' | 'failed' | 'gone') => void) | undefined;
}

export interface WebhookSender {
  /** Looks for due deliveries now (as a notification would); resolves when nothing due is left unclaimed. */
  drain(): Promise<void>;
  /** Deliveries being sent right now. */
  inFlight(): number;
  /** What this sender did since it started. */
  stats(): { attempts: number; succeeded: number };
  /** Stops claiming and waits for the requests in flight. */
  stop(): Promise<void>;
}

export async function startWebhookSender(opts: WebhookSenderOptions): Promise<WebhookSender> {
  const clock = opts.clock ?? systemClock;
  const signingClock = opts.signingClock ?? systemClock;
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const concurrency = opts.concurrency ?? 32;
  const leaseMs = opts.leaseMs ?? timeoutMs + 30_000;
  const pollMs = opts.pollMs ?? 30_000;
  const db = createDeliveryStatements(opts.statements);
  const log = opts.logger;
  const inFlight = new Set<Promise<void>>();
  const secrets = new Map<number, { stored: string; secret: string }>();
  const stats = { attempts: 0, succeeded: 0 };

  let stopped = false;
  let wanted = true; // a look at the table is due
  let wake: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  let idleWaiters: (() => void)[] = [];

  const signal = () => {
    wanted = true;
    wake?.();
  };

  function secretOf(d: ClaimedDelivery): string {
    const cached = secrets.get(d.endpoint_id);
    if (cached?.stored === d.secret) return cached.secret;
    const secret = decryptSecret(opts.secretKey, Buffer.from(d.secret, 'base64'));
    secrets.set(d.endpoint_id, { stored: d.secret, secret });
    return secret;
  }

  async function attempt(d: ClaimedDelivery): Promise<AttemptOutcome> {
    try {
      const url = parseEndpointUrl(d.url, opts.policy);
      const addresses = await vetAddresses(url, opts.policy);
      return await sendSigned({
        url,
        addresses,
        webhookId: d.webhook_id,
        body: d.body,
        secret: secretOf(d),
        signedAt: signingClock.now(),
        timeoutMs,
      });
    } catch (err) {
      if (err instanceof EndpointRefused) return { kind: 'failed', status: null, error: err.message };
      // e.g. a secret that no longer decrypts (PLATFORM_SECRET_KEY changed): a failed attempt like any other, so
      // that the retry schedule applies instead of a lease running out again and again
      log.error({ err, delivery: d.id }, 'webhook delivery could not be prepared');
      return { kind: 'failed', status: null, error: `could not send: ${(err as Error).message}` };
    }
  }

  // With tracing on, each attempt is a span in the trace of the change that recorded the event (an approval), kept
  // with the outbox row: its signed POST, and the receiver's handling of it, continue that trace.
  function tracedAttempt(d: ClaimedDelivery): Promise<AttemptOutcome> {
    return inSpanContinuing(
      d.traceparent ? { traceparent: d.traceparent } : null,
      'webhook.deliver',
      { 'pa.webhook.attempt': d.attempts, 'pa.webhook.endpoint_id': d.endpoint_id },
      async (span) => {
        const outcome = await attempt(d);
        span.set('pa.webhook.outcome', outcome.kind);
        if (outcome.kind !== 'succeeded')
          span.fail(outcome.kind === 'gone' ? 'endpoint gone (410)' : outcome.error);
        return outcome;
      },
    );
  }

  async function deliver(d: ClaimedDelivery, token: string): Promise<void> {
    const outcome = await tracedAttempt(d);
    stats.attempts++;
    if (outcome.kind === 'succeeded') stats.succeeded++;
    const now = clock.now();
    let written: boolean;
    if (outcome.kind === 'succeeded') {
      written = await db.succeeded(d.id, token, now, outcome.status);
      opts.onAttempt?.('succeeded');
    } else if (outcome.kind === 'gone') {
      written = (await db.gone(d.id, token, now)) > 0;
      opts.onAttempt?.('gone');
      log.warn({ endpoint: d.endpoint_id, tenant: d.tenant_id }, 'webhook endpoint answered 410: disabled');
    } else {
      const delay = retryDelayMs(d.attempts, opts.random);
      opts.onAttempt?.(delay === null ? 'failed' : 'retrying');
      written = await db.failedAttempt(
        d.id,
        token,
        outcome.status,
        outcome.error,
        delay === null ? null : new Date(now.getTime() + delay),
      );
      log.info(
        {
          delivery: d.id,
          webhookId: d.webhook_id,
          attempts: d.attempts,
          status: outcome.status,
          error: outcome.error,
        },
        delay === null ? 'webhook delivery failed for good' : 'webhook delivery failed; will retry',
      );
    }
    // the lease ran out and another sender took the delivery over: its outcome stands
    if (!written) log.warn({ delivery: d.id }, 'webhook delivery lease lost before its outcome was written');
  }

  function launch(d: ClaimedDelivery, token: string, full: boolean): void {
    const p = deliver(d, token)
      .catch((err: unknown) => log.error({ err, delivery: d.id }, 'webhook delivery attempt broke'))
      .finally(() => {
        inFlight.delete(p);
        // a free slot matters when the last claim was cut short by the limit; once idle, look again so that
        // the timer for the next retry is set
        if (full || inFlight.size === 0) signal();
      });
    inFlight.add(p);
  }

  function settleIdle() {
    if (wanted || inFlight.size > 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const w of waiters) w();
  }

  async function scheduleNextDue(): Promise<void> {
    clearTimeout(timer);
    let delay = pollMs;
    const at = await db.nextDueMs();
    if (at !== null) delay = Math.min(pollMs, Math.max(50, at - clock.now().getTime()));
    timer = setTimeout(signal, delay);
    timer.unref();
  }

  async function loop(): Promise<void> {
    while (!stopped) {
      if (!wanted) {
        settleIdle();
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
        continue;
      }
      wanted = false;
      const free = concurrency - inFlight.size;
      if (free <= 0) continue; // a finishing request signals
      try {
        const token = randomUUID();
        const claimed = await db.claim(clock.now(), free, leaseMs, token);
        const full = claimed.length === free;
        for (const d of claimed) launch(d, token, full);
        if (full) wanted = true;
        else if (inFlight.size === 0) await scheduleNextDue();
      } catch (err) {
        log.error({ err }, 'claiming webhook deliveries failed; trying again at the next wake-up');
        clearTimeout(timer);
        timer = setTimeout(signal, Math.min(pollMs, 1_000));
        timer.unref();
      }
    }
  }

  const stopWakeups = opts.wakeups ? await opts.wakeups(signal) : undefined;
  const running = loop();
  const poll = setInterval(signal, pollMs);
  poll.unref();

  return {
    drain() {
      if (stopped) return Promise.resolve();
      return new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        signal();
      });
    },
    inFlight: () => inFlight.size,
    stats: () => ({ ...stats }),
    async stop() {
      stopped = true;
      clearInterval(poll);
      clearTimeout(timer);
      wake?.();
      await stopWakeups?.();
      await running;
      await Promise.all(inFlight);
      for (const w of idleWaiters) w();
      idleWaiters = [];
    },
  };
}
