// The access audit: who changed keys, switches and endpoints, what, and when — newest first, from this page and
// from the operator CLI alike.
import { h } from '../common/dom.js';
import { formatDateTime } from '../common/time.js';
import { listAudit } from './api.js';
import { FLAG_NAMES } from './flags.js';
import { $, failIn, showError } from './page-kit.js';

/** @typedef {import('./page-kit.js').PageContext} PageContext */

/** How many entries the page shows. */
export const AUDIT_SHOWN = 50;

/** @type {Record<string, string>} */
export const ACTION_WORDS = {
  'remote-key.created': 'created',
  'remote-key.revoked': 'revoked',
  'admin-key.created': 'created',
  'admin-key.revoked': 'revoked',
  'flag.enabled': 'switched on',
  'flag.disabled': 'switched off',
  'webhook-endpoint.added': 'added',
  'webhook-endpoint.removed': 'removed',
  'webhook-delivery.redelivered': 'sent again',
};

/**
 * The target as written by the platform, with a flag's name in words before its technical one.
 * @param {import('./types.js').AccessAuditEntry} e
 */
function targetWords(e) {
  const name = e.action.startsWith('flag.')
    ? FLAG_NAMES[/** @type {keyof FLAG_NAMES} */ (e.target)]
    : undefined;
  return name ? `${name} (${e.target})` : e.target;
}

/** @param {PageContext} ctx */
export function createAuditSection(ctx) {
  const list = $('audit-list');
  const empty = $('audit-empty');
  const error = $('audit-error');

  async function load() {
    const key = ctx.key();
    if (!key) return;
    try {
      const { entries } = await listAudit(key, AUDIT_SHOWN);
      showError(error, null);
      empty.hidden = entries.length > 0;
      list.replaceChildren(
        ...entries.map((e) =>
          h(
            'li',
            { 'data-action': e.action },
            h('time', { datetime: e.at }, formatDateTime(e.at)),
            h(
              'span',
              { class: 'audit-what' },
              h('strong', null, e.actor),
              ` ${ACTION_WORDS[e.action] ?? e.action} `,
              targetWords(e),
            ),
          ),
        ),
      );
    } catch (err) {
      failIn(ctx, err, error);
    }
  }

  $('audit-refresh').addEventListener('click', () => void load());
  return {
    load,
    reset() {
      list.replaceChildren();
      empty.hidden = true;
      showError(error, null);
    },
  };
}
