// The Settings tab's daily briefing for the chat's assistant: on or off, where it goes, when (a time
// of day on every day or on weekdays; any cron expression under Advanced), the time zone and the next briefing in
// words; "Send a briefing now", followed until it is done; and the recent briefings with their text.
// Everything is built with DOM calls; a briefing's Markdown goes through the chat's safe renderer.
import { ApiError } from './chat-api.js';
import { listChannels } from './channels-api.js';
import { el } from './dom.js';
import { renderMarkdownInto } from './markdown.js';
import { getSummaryConfig, listSummaryRuns, runSummaryNow, setSummaryConfig } from './summary-api.js';

const RUNS_SHOWN = 5;
const TURNED_OFF = 'Daily briefings are turned off in this installation of Porter.';
const FOLLOW_MS = 1_000;
const FOLLOW_FOR_MS = 90_000;
const COMMON_ZONES = ['Europe/London', 'Europe/Dublin', 'Europe/Paris', 'Europe/Madrid', 'UTC'];
/** @type {Record<string, string>} */
const CHANNEL_WORDS = { web: 'On this page', telegram: 'Telegram', whatsapp: 'WhatsApp' };
/** @type {Record<string, string>} */
const STATUS_WORDS = {
  queued: 'Waiting',
  running: 'Writing',
  delivered: 'Sent',
  failed: 'Failed',
  skipped: 'Skipped',
};

/**
 * @typedef {{ workerId: string, enabled: boolean, deliveryChannel: string, summarySchedule: string,
 *   timezone: string, nextRunAt: string | null, updatedAt: string }} SummaryConfig
 * @typedef {{ id: string, trigger: string, scheduledFor: string, status: string, attempts: number,
 *   deliveryChannel: string, startedAt: string | null, finishedAt: string | null, error: string | null,
 *   briefing: string | null }} SummaryRun
 */

/**
 * "0 8 * * *" → {time: "08:00", days: "daily"}; "30 7 * * 1-5" → weekdays; anything else is custom.
 * @param {string} cron
 * @returns {{ time: string, days: 'daily' | 'weekdays' } | null}
 */
export function simpleSchedule(cron) {
  const m = /^\s*(\d{1,2})\s+(\d{1,2})\s+\*\s+\*\s+(\*|1-5)\s*$/.exec(cron);
  if (!m) return null;
  const minute = Number(m[1]);
  const hour = Number(m[2]);
  if (minute > 59 || hour > 23) return null;
  const time = `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`;
  return { time, days: m[3] === '*' ? 'daily' : 'weekdays' };
}

/** @param {string} time "HH:MM" @param {'daily' | 'weekdays'} days */
export function cronOf(time, days) {
  const [hour, minute] = time.split(':').map(Number);
  return `${minute ?? 0} ${hour ?? 8} * * ${days === 'weekdays' ? '1-5' : '*'}`;
}

const two = (/** @type {number} */ n) => String(n).padStart(2, '0');

/**
 * A time of day on the 24-hour clock, whatever the browser's language: an hour and a minutes list side by side.
 * (An <input type=time> follows the browser's locale, and showed "08:00 AM" in an en-US browser.) Minutes go in
 * fives; a saved time between them (07:32, from a custom schedule) is added to the list so it shows as it is.
 * @param {string} base the id prefix
 */
export function createTimeOfDay(base) {
  const hour = el(
    'select',
    { id: `${base}-hour`, class: 'field-input time-part', 'aria-label': 'Hour (24-hour clock)' },
    Array.from({ length: 24 }, (_, h) => el('option', { value: two(h), text: two(h) })),
  );
  const minute = el(
    'select',
    { id: `${base}-minute`, class: 'field-input time-part', 'aria-label': 'Minutes' },
    Array.from({ length: 12 }, (_, i) => el('option', { value: two(i * 5), text: two(i * 5) })),
  );
  const field = el('fieldset', { class: 'field time-field', 'data-time-of-day': '' }, [
    el('legend', { text: 'At' }),
    el('div', { class: 'time-parts' }, [hour, el('span', { class: 'time-colon', text: ':' }), minute]),
  ]);
  /** @param {string} value "HH:MM" */
  function set(value) {
    const m = /^(\d{1,2}):(\d{2})$/.exec(value);
    const h = m ? Math.min(Number(m[1]), 23) : 8;
    const min = m ? Math.min(Number(m[2]), 59) : 0;
    hour.value = two(h);
    if (![...minute.options].some((o) => o.value === two(min))) {
      const after = [...minute.options].find((o) => Number(o.value) > min) ?? null;
      minute.insertBefore(el('option', { value: two(min), text: two(min) }), after);
    }
    minute.value = two(min);
  }
  const get = () => `${hour.value}:${minute.value}`;
  set('08:00');
  return { field, hour, minute, set, get };
}

/**
 * A moment in a zone as a UK reader writes it: "Tue 24 Nov 2026 at 08:00".
 * @param {string} iso
 * @param {string} timeZone
 */
function inZone(iso, timeZone) {
  const d = new Date(iso);
  let zone = timeZone;
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone });
  } catch {
    zone = 'UTC';
  }
  const day = d.toLocaleDateString('en-GB', {
    timeZone: zone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
  });
  const time = d.toLocaleTimeString('en-GB', {
    timeZone: zone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  return `${day} at ${time}`;
}

/** "London time", "Paris time", "UTC" */
function zoneWords(/** @type {string} */ zone) {
  if (zone === 'UTC' || zone === 'Etc/UTC') return 'UTC';
  const city = zone.split('/').pop() ?? zone;
  return `${city.replace(/_/g, ' ')} time`;
}

/**
 * The failure in words, and the field it is about.
 * @param {unknown} err
 * @returns {{ message: string, field: 'schedule' | 'timezone' | 'channel' | null }}
 */
function describeError(err) {
  if (!(err instanceof ApiError)) return { message: 'Something went wrong. Try again.', field: null };
  switch (err.code) {
    case 'summary-disabled':
      return { message: TURNED_OFF, field: null };
    case 'worker-not-bound':
      return {
        message: 'Connect the property platform first: the briefing is written from it.',
        field: null,
      };
    case 'channel-not-connected':
      return {
        message: 'That channel is not connected to Porter any more. Choose another, or connect it again.',
        field: 'channel',
      };
    case 'redis-unavailable':
      return {
        message:
          'The schedule could not be saved because Porter’s queue is unavailable. Try again in a moment.',
        field: null,
      };
    case 'validation-failed': {
      const fields = /** @type {import('./chat-api.js').FieldsApiError} */ (err).fields ?? [];
      const first = fields[0];
      if (first?.pointer.endsWith('/summarySchedule'))
        return { message: `The schedule ${first.detail}.`, field: 'schedule' };
      if (first?.pointer.endsWith('/timezone'))
        return { message: `The time zone ${first.detail}.`, field: 'timezone' };
      return { message: err.message, field: null };
    }
    default:
      return { message: err.message, field: null };
  }
}

/**
 * @param {{ workspaceId: string, worker: { id: string }, available: boolean, bound: () => boolean }} o
 *   `available`: the gateway has daily summaries on (GET /api/web/context's features); else one line, no request
 * @returns {HTMLElement}
 */
export function createSummarySection({ workspaceId, worker, available, bound }) {
  const base = `worker-${worker.id}-summary`;
  const headingId = `${base}-heading`;
  const heading = el('h4', { id: headingId, class: 'channel-heading', text: 'Daily briefing' });
  const intro = el('p', {
    class: 'channel-intro',
    text: 'Every morning, Porter writes what needs your attention: expired and expiring certificates, arrears, deal actions due and email waiting for a reply.',
  });
  const body = el('div', { class: 'summary-body' });
  const section = el(
    'section',
    { class: 'channel-section summary-section', 'aria-labelledby': headingId, 'aria-busy': 'true' },
    [heading, intro, body],
  );

  /** @type {SummaryConfig | null} */
  let config = null;
  /** @type {string[]} */
  let channels = ['web'];
  /** @type {SummaryRun[]} */
  let runs = [];
  /** @type {string | null} the run "Send a briefing now" is following */
  let following = null;

  // --- the form --------------------------------------------------------------------------------------------

  const enabled = el('input', { type: 'checkbox', id: `${base}-enabled`, class: 'summary-enabled' });
  const where = el('select', { id: `${base}-channel`, class: 'field-input' });
  const time = createTimeOfDay(base);
  const days = el('select', { id: `${base}-days`, class: 'field-input' }, [
    el('option', { value: 'daily', text: 'Every day' }),
    el('option', { value: 'weekdays', text: 'Weekdays' }),
    el('option', { value: 'custom', text: 'Custom schedule' }),
  ]);
  const zone = el('select', { id: `${base}-zone`, class: 'field-input' });
  const cron = el('input', {
    type: 'text',
    id: `${base}-cron`,
    class: 'field-input field-mono',
    spellcheck: 'false',
    autocapitalize: 'none',
    maxlength: '120',
    'aria-describedby': `${base}-cron-hint`,
  });
  const next = el('p', { class: 'summary-next', 'data-summary-next': '' });
  const save = el('button', { type: 'submit', class: 'button button-primary', text: 'Save' });
  const status = el('p', { class: 'form-status', role: 'status', 'aria-live': 'polite' });
  const field = (/** @type {string} */ label, /** @type {HTMLElement} */ input, hint = '') =>
    el('div', { class: 'field' }, [
      el('label', { for: input.id, text: label }),
      input,
      ...(hint ? [el('p', { class: 'field-hint', id: `${input.id}-hint`, text: hint })] : []),
    ]);
  const advanced = el('details', { class: 'advanced summary-advanced' }, [
    el('summary', { class: 'advanced-summary', text: 'Custom schedule' }),
    field(
      'Schedule (cron expression)',
      cron,
      'Five fields: minute, hour, day of month, month, day of week, read in the time zone above. “0 8 * * *” is 08:00 every day.',
    ),
  ]);
  const form = el('form', { class: 'summary-form', novalidate: '', autocomplete: 'off' }, [
    el('div', { class: 'summary-toggle' }, [
      enabled,
      el('label', { for: enabled.id, text: 'Send me a daily briefing' }),
    ]),
    el('div', { class: 'summary-fields' }, [
      field('Where', where),
      time.field,
      field('On', days),
      field('Time zone', zone),
    ]),
    advanced,
    next,
    el('div', { class: 'form-actions' }, [save]),
    status,
  ]);
  const runNow = el('button', {
    type: 'button',
    class: 'button button-secondary',
    text: 'Send a briefing now',
  });
  const runStatus = el('p', { class: 'form-status', role: 'status', 'aria-live': 'polite' });
  const runList = el('ul', { class: 'summary-runs', 'aria-label': 'Recent briefings' });
  const recent = el('div', { class: 'summary-recent' }, [
    el('h5', { class: 'summary-recent-heading', text: 'Recent briefings' }),
    el('div', { class: 'form-actions' }, [runNow]),
    runStatus,
    runList,
  ]);

  /** @param {HTMLParagraphElement} p @param {string} text @param {string} kind */
  const say = (p, text, kind) => {
    p.textContent = text;
    p.dataset.kind = kind;
  };

  function fillZones(/** @type {string} */ current) {
    const own = Intl.DateTimeFormat().resolvedOptions().timeZone;
    const zones = [...new Set([current, ...COMMON_ZONES, own].filter(Boolean))];
    zone.replaceChildren(
      ...zones.map((z) => el('option', { value: z, text: z === 'UTC' ? 'UTC' : z.replace(/_/g, ' ') })),
    );
    zone.value = current;
  }

  function fillChannels(/** @type {string} */ current) {
    const offered = [...new Set(['web', ...channels, current])];
    where.replaceChildren(...offered.map((c) => el('option', { value: c, text: CHANNEL_WORDS[c] ?? c })));
    where.value = current;
  }

  /** The form from a saved configuration. */
  function showConfig(/** @type {SummaryConfig} */ c) {
    config = c;
    enabled.checked = c.enabled;
    fillChannels(c.deliveryChannel);
    fillZones(c.timezone);
    cron.value = c.summarySchedule;
    const simple = simpleSchedule(c.summarySchedule);
    time.set(simple?.time ?? '08:00');
    days.value = simple?.days ?? 'custom';
    showNext();
  }

  function showNext() {
    if (!config) return;
    if (!config.enabled) next.textContent = 'Daily briefings are off.';
    else if (!config.nextRunAt)
      next.textContent = 'On, but not scheduled: connect the property platform first.';
    else
      next.textContent = `Next briefing: ${inZone(config.nextRunAt, config.timezone)} (${zoneWords(config.timezone)}), ${CHANNEL_WORDS[config.deliveryChannel]?.toLowerCase() ?? config.deliveryChannel}.`;
  }

  // The simple controls write the cron expression; editing it by hand makes the schedule custom.
  for (const input of [time.hour, time.minute, days])
    input.addEventListener('change', () => {
      if (days.value !== 'custom') cron.value = cronOf(time.get(), /** @type {any} */ (days.value));
    });
  cron.addEventListener('input', () => {
    const simple = simpleSchedule(cron.value);
    days.value = simple?.days ?? 'custom';
    if (simple) time.set(simple.time);
  });
  days.addEventListener('change', () => {
    if (days.value === 'custom') advanced.open = true;
  });

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void saveConfig();
  });

  let busy = false;
  async function saveConfig() {
    if (busy) return;
    busy = true;
    save.setAttribute('aria-disabled', 'true');
    for (const input of [cron, zone, where]) input.removeAttribute('aria-invalid');
    say(status, 'Saving…', 'pending');
    try {
      const saved = await setSummaryConfig(workspaceId, worker.id, {
        enabled: enabled.checked,
        deliveryChannel: where.value,
        summarySchedule: cron.value.trim(),
        timezone: zone.value,
      });
      showConfig(saved);
      say(status, saved.enabled ? 'Saved.' : 'Saved: daily briefings are off.', 'success');
    } catch (err) {
      const { message, field: which } = describeError(err);
      say(status, message, 'error');
      const input =
        which === 'schedule' ? cron : which === 'timezone' ? zone : which === 'channel' ? where : null;
      if (input) {
        input.setAttribute('aria-invalid', 'true');
        if (input === cron) advanced.open = true;
        input.focus();
      }
    } finally {
      busy = false;
      save.setAttribute('aria-disabled', 'false');
    }
  }

  // --- runs ------------------------------------------------------------------------------------------------

  function renderRuns() {
    if (runs.length === 0) {
      runList.replaceChildren(el('li', { class: 'summary-run-none', text: 'No briefings yet.' }));
      return;
    }
    runList.replaceChildren(
      ...runs.map((run, i) => {
        const when = run.finishedAt ?? run.startedAt ?? run.scheduledFor;
        const state = STATUS_WORDS[run.status] ?? run.status;
        const line = el('p', { class: 'summary-run-line' }, [
          el('span', { class: 'summary-run-status', 'data-status': run.status, text: state }),
          ` ${inZone(when, config?.timezone ?? 'Europe/London')} · ${CHANNEL_WORDS[run.deliveryChannel] ?? run.deliveryChannel}${run.trigger === 'manual' ? ' · sent on request' : ''}`,
        ]);
        /** @type {HTMLElement[]} */
        const parts = [line];
        if (run.error && run.status !== 'delivered')
          parts.push(el('p', { class: 'summary-run-error', text: run.error }));
        if (run.briefing) {
          const text = el('div', { class: 'summary-briefing markdown' });
          renderMarkdownInto(text, run.briefing);
          const details = el('details', { class: 'summary-run-briefing' }, [
            el('summary', { text: 'Read the briefing' }),
            text,
          ]);
          // the newest briefing (and the one just sent) opens by itself
          details.open = i === 0 && (following === run.id || run.trigger === 'manual');
          parts.push(details);
        }
        return el('li', { class: 'summary-run', 'data-run-id': run.id }, parts);
      }),
    );
  }

  async function loadRuns() {
    const list = await listSummaryRuns(workspaceId, worker.id, RUNS_SHOWN);
    runs = Array.isArray(list?.runs) ? list.runs : [];
    renderRuns();
  }

  runNow.addEventListener('click', () => void sendNow());
  async function sendNow() {
    if (runNow.getAttribute('aria-disabled') === 'true') return;
    runNow.setAttribute('aria-disabled', 'true');
    say(runStatus, 'Writing a briefing…', 'pending');
    try {
      const { runId } = await runSummaryNow(workspaceId, worker.id);
      following = runId;
      const deadline = Date.now() + FOLLOW_FOR_MS;
      for (;;) {
        await loadRuns();
        const run = runs.find((r) => r.id === runId);
        if (run && ['delivered', 'failed', 'skipped'].includes(run.status)) {
          if (run.status === 'delivered') say(runStatus, 'Briefing sent: it is below.', 'success');
          else say(runStatus, `${STATUS_WORDS[run.status]}: ${run.error ?? 'no reason given'}`, 'error');
          break;
        }
        if (Date.now() > deadline) {
          say(
            runStatus,
            'The briefing is taking longer than usual; it will appear below when it is ready.',
            'info',
          );
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, FOLLOW_MS));
      }
    } catch (err) {
      say(runStatus, describeError(err).message, 'error');
    } finally {
      runNow.setAttribute('aria-disabled', 'false');
    }
  }

  // --- loading ---------------------------------------------------------------------------------------------

  async function load() {
    section.setAttribute('aria-busy', 'true');
    try {
      const [c, list] = await Promise.all([
        getSummaryConfig(workspaceId, worker.id),
        listChannels(workspaceId, worker.id).catch(() => ({ channels: [] })),
      ]);
      channels = [
        'web',
        ...(list.channels ?? []).filter((ch) => ch.status === 'connected').map((ch) => ch.type),
      ];
      showConfig(c);
      body.replaceChildren(form, recent);
      if (!bound())
        say(status, 'Connect the property platform first: the briefing is written from it.', 'info');
      await loadRuns();
    } catch (err) {
      if (err instanceof ApiError && err.code === 'summary-disabled') {
        body.replaceChildren(el('p', { class: 'settings-empty', text: TURNED_OFF }));
      } else {
        body.replaceChildren(
          el('p', {
            class: 'settings-error',
            text: `Could not load the daily briefing. ${describeError(err).message}`,
          }),
        );
      }
    } finally {
      section.setAttribute('aria-busy', 'false');
    }
  }

  if (available) {
    void load();
  } else {
    body.replaceChildren(el('p', { class: 'settings-empty', text: TURNED_OFF }));
    section.setAttribute('aria-busy', 'false');
  }
  return section;
}
