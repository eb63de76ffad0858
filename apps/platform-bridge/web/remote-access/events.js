// Signed events: the workspace's endpoints, each with its last deliveries (what was sent, whether it arrived) and
// a Redeliver button for a finished one; Remove confirmed in place; Add shows the new endpoint's signing secret
// once. A note says when the events flag is off, since then nothing is sent.
import { h } from '../common/dom.js';
import { formatDateTime, fromNow } from '../common/time.js';
import { ApiError, createEndpoint, deleteEndpoint, listDeliveries, listEndpoints, redeliver } from './api.js';
import { confirmInPlace } from './confirm.js';
import { problemMessage } from './messages.js';
import { $, announce, failIn, showError } from './page-kit.js';
import { createReveal } from './reveal.js';

/** @typedef {import('./page-kit.js').PageContext} PageContext */
/** @typedef {import('./types.js').WebhookEndpoint} WebhookEndpoint */
/** @typedef {import('./types.js').WebhookDelivery} WebhookDelivery */

/** How many of an endpoint's deliveries the page shows. */
export const DELIVERIES_SHOWN = 5;

/** @type {Record<string, string>} */
const EVENT_WORDS = {
  'proposal.approved': 'Proposal approved',
  'proposal.rejected': 'Proposal rejected',
  'proposal.expired': 'Proposal expired',
  'compliance.status_changed': 'Compliance status changed',
  'knowledge.changed': 'Knowledge changed',
};

/** @param {number | null} code */
const answered = (code) => (code === null ? '' : ` (answered ${code})`);

/** What happened to a delivery, in a few words. @param {WebhookDelivery} d */
export function deliveryWords(d) {
  if (d.status === 'succeeded') return `Delivered${answered(d.last_status_code)}`;
  if (d.status === 'failed') {
    return `Failed after ${d.attempts} ${d.attempts === 1 ? 'try' : 'tries'}${answered(d.last_status_code)}`;
  }
  if (d.attempts === 0) return 'Waiting to be sent';
  const next = d.next_attempt_at ? `, next try ${fromNow(d.next_attempt_at)}` : '';
  return `Not arrived yet${answered(d.last_status_code)}${next}`;
}

/**
 * What is wrong with the address: the form's checks say it in a fragment ("must be a URL"), the platform's address
 * policy in a sentence ("The URL must use https.").
 * @param {string} detail
 */
export function urlWords(detail) {
  return /^[A-Z]/.test(detail)
    ? `The platform will not send events there. ${detail}`
    : `The address ${detail.replace(/\.$/, '')}.`;
}

/**
 * @param {PageContext} ctx
 */
export function createEventsSection(ctx) {
  const list = $('endpoints');
  const error = $('events-error');
  const off = $('events-off');
  const form = /** @type {HTMLFormElement} */ ($('endpoint-form'));
  const url = /** @type {HTMLInputElement} */ ($('endpoint-url'));
  const urlError = $('endpoint-url-error');
  const add = /** @type {HTMLButtonElement} */ ($('endpoint-add'));
  const reveal = createReveal({
    box: $('new-endpoint'),
    lines: $('new-endpoint-lines'),
    done: /** @type {HTMLButtonElement} */ ($('new-endpoint-done')),
    prefix: 'new-endpoint',
  });

  /** @param {string | null} message */
  function setUrlError(message) {
    showError(urlError, message);
    if (message) url.setAttribute('aria-invalid', 'true');
    else url.removeAttribute('aria-invalid');
  }

  /**
   * @param {WebhookDelivery} d
   * @param {HTMLElement} sectionError where a failed redelivery is said
   * @param {() => Promise<void>} reload
   */
  function deliveryRow(d, sectionError, reload) {
    const again =
      d.status === 'pending'
        ? null
        : h(
            'button',
            { type: 'button', class: 'btn btn-secondary btn-small', 'data-action': 'redeliver' },
            'Redeliver',
          );
    again?.addEventListener('click', async () => {
      const key = ctx.key();
      if (!key) return ctx.keyRefused();
      again.disabled = true;
      try {
        await redeliver(key, d.id);
        announce(`${EVENT_WORDS[d.event_type] ?? d.event_type}: sending it again now.`);
        showError(sectionError, null);
        ctx.changed();
        await reload();
      } catch (err) {
        again.disabled = false;
        failIn(ctx, err, sectionError);
      }
    });
    const at = d.delivered_at ?? d.last_attempt_at ?? d.created_at;
    return h(
      'tr',
      { 'data-delivery-id': String(d.id), 'data-status': d.status },
      h('th', { scope: 'row', 'data-label': 'Event' }, EVENT_WORDS[d.event_type] ?? d.event_type),
      h(
        'td',
        { 'data-label': 'Result', 'data-col': 'result' },
        h('span', { class: `badge delivery-${d.status}` }, deliveryWords(d)),
        d.status !== 'succeeded' && d.last_error
          ? h('span', { class: 'delivery-error' }, d.last_error)
          : null,
      ),
      h('td', { 'data-label': 'When' }, h('time', { datetime: at, title: formatDateTime(at) }, fromNow(at))),
      h('td', { 'data-label': '', 'data-col': 'action' }, again),
    );
  }

  /** @param {WebhookEndpoint} e */
  function renderEndpoint(e) {
    const deliveries = h('div', { class: 'deliveries', 'aria-live': 'polite' });
    const endpointError = h('p', { class: 'form-error', role: 'alert', hidden: true });
    const remove = h(
      'button',
      {
        type: 'button',
        class: 'btn btn-secondary btn-small',
        'data-action': 'remove',
        'aria-label': `Remove ${e.url}`,
      },
      'Remove…',
    );
    const item = h(
      'li',
      { class: 'endpoint', 'data-endpoint-id': String(e.id), 'data-enabled': String(e.enabled) },
      h(
        'div',
        { class: 'endpoint-head' },
        h('p', { class: 'endpoint-url' }, e.url),
        h('div', { class: 'endpoint-actions' }, remove),
      ),
      h(
        'p',
        { class: 'endpoint-meta' },
        e.enabled
          ? h('span', { class: 'badge active' }, 'Active')
          : h('span', { class: 'badge disabled' }, 'Switched off'),
        ` Added ${formatDateTime(e.created_at)}. `,
        `${e.deliveries.succeeded} delivered, ${e.deliveries.pending} on the way, ${e.deliveries.failed} failed.`,
      ),
      e.enabled
        ? null
        : h(
            'p',
            { class: 'endpoint-disabled' },
            `The platform stopped sending here${e.disabled_at ? ` on ${formatDateTime(e.disabled_at)}` : ''}: ${e.disabled_reason ?? 'too many deliveries failed'}. Remove it and add it again to start afresh.`,
          ),
      h('h3', { class: 'deliveries-title' }, 'Last deliveries'),
      endpointError,
      deliveries,
    );

    const loadDeliveries = async () => {
      const key = ctx.key();
      if (!key) return;
      try {
        const { deliveries: rows } = await listDeliveries(key, e.id, DELIVERIES_SHOWN);
        deliveries.replaceChildren(
          rows.length
            ? h(
                'table',
                { class: 'delivery-table' },
                h('caption', { class: 'visually-hidden' }, `Last deliveries to ${e.url}`),
                h(
                  'thead',
                  null,
                  h(
                    'tr',
                    null,
                    ...['Event', 'Result', 'When'].map((t) => h('th', { scope: 'col' }, t)),
                    h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Action')),
                  ),
                ),
                h('tbody', null, ...rows.map((d) => deliveryRow(d, endpointError, loadDeliveries))),
              )
            : h('p', { class: 'empty-line' }, 'Nothing sent here yet.'),
        );
      } catch (err) {
        failIn(ctx, err, endpointError);
      }
    };

    remove.addEventListener('click', () =>
      confirmInPlace(remove, {
        question: 'Remove this endpoint? Nothing more is sent to it, and its delivery history goes too.',
        action: 'Remove endpoint',
        run: async () => {
          const key = ctx.key();
          if (!key) return (ctx.keyRefused(), 'done');
          try {
            await deleteEndpoint(key, e.id);
          } catch (err) {
            failIn(ctx, err, endpointError);
            return 'keep';
          }
          announce(`Endpoint ${e.url} removed.`);
          ctx.changed();
          await load();
          url.focus();
          return 'done';
        },
      }),
    );
    return { item, loadDeliveries };
  }

  async function load() {
    const key = ctx.key();
    if (!key) return;
    list.setAttribute('aria-busy', 'true');
    try {
      const { endpoints } = await listEndpoints(key);
      showError(error, null);
      const rendered = endpoints.map(renderEndpoint);
      list.replaceChildren(...rendered.map((r) => r.item));
      if (endpoints.length === 0) {
        list.replaceChildren(h('li', { class: 'empty-line' }, 'No endpoints yet: events go nowhere.'));
      }
      await Promise.all(rendered.map((r) => r.loadDeliveries()));
    } catch (err) {
      failIn(ctx, err, error);
    } finally {
      list.removeAttribute('aria-busy');
    }
  }

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const key = ctx.key();
    if (!key) return ctx.keyRefused();
    const value = url.value.trim();
    if (!value) {
      setUrlError('Enter the address events should be sent to.');
      url.focus();
      return;
    }
    setUrlError(null);
    add.disabled = true;
    try {
      const created = await createEndpoint(key, value);
      form.reset();
      ctx.changed();
      await load();
      reveal.show(
        [
          {
            label: 'Signing secret',
            value: created.secret,
            name: 'secret',
            copy: 'Copy secret',
            secret: true,
          },
        ],
        url,
      );
      announce(`Endpoint added. Copy its signing secret now: it is shown only once.`);
    } catch (err) {
      if (
        err instanceof ApiError &&
        err.code !== 'invalid-api-key' &&
        err.code !== 'network' &&
        err.status < 500
      ) {
        // about the address: said beside the field
        const field = err.fields.find((f) => f.pointer === '#/url');
        setUrlError(field ? urlWords(field.detail) : problemMessage(err));
        url.focus();
      } else {
        failIn(ctx, err, error);
      }
    } finally {
      add.disabled = false;
    }
  });
  form.addEventListener('reset', () => setUrlError(null));
  $('events-refresh').addEventListener('click', () => void load());

  return {
    load,
    /** @param {boolean} on whether the tenant's events flag is on */
    setFlag(on) {
      off.hidden = on;
    },
    reset() {
      reveal.hide();
      list.replaceChildren();
      form.reset();
      showError(error, null);
    },
  };
}
