// The key lists: the workspace's remote (plat_) keys and its admin (padm_) keys — label, what each may do, its
// visible start, when it was created and last used, and whether it is revoked — with Revoke confirmed in place.
// Revoking the last admin key that may manage remote access asks a second time (409 last-access-admin).
import { h } from '../common/dom.js';
import { formatDateTime, fromNow } from '../common/time.js';
import { ApiError, listAdminKeys, listRemoteKeys, revokeAdminKey, revokeRemoteKey } from './api.js';
import { confirmInPlace } from './confirm.js';
import { $, announce, failIn, showError } from './page-kit.js';

/** @typedef {import('./page-kit.js').PageContext} PageContext */
/** @typedef {import('./types.js').RemoteKey} RemoteKey */
/** @typedef {import('./types.js').AdminKey} AdminKey */

/** @type {Record<string, string>} */
export const SCOPE_WORDS = {
  'bridge:read': 'Read',
  'bridge:propose': 'Propose changes',
  'review:read': 'See the review queue',
  'review:write': 'Approve and reject',
  'access:manage': 'Manage remote access',
};

/** @param {string[]} scopes */
const scopeBadges = (scopes) =>
  h(
    'span',
    { class: 'scopes' },
    ...scopes.map((s) => h('span', { class: 'badge scope', 'data-scope': s, title: s }, SCOPE_WORDS[s] ?? s)),
  );

/** @param {string} iso */
const when = (iso) => h('time', { datetime: iso }, formatDateTime(iso));

/** @param {string | null} iso */
const lastUsed = (iso) =>
  iso
    ? h('time', { datetime: iso, title: formatDateTime(iso) }, fromNow(iso))
    : h('span', { class: 'muted' }, 'Never');

/**
 * One table cell, labelled for the phone layout (where each row is a card and the header row is hidden).
 * @param {string} label
 * @param {string} name
 * @param {...(Node | string | null)} children
 */
const cell = (label, name, ...children) => h('td', { 'data-label': label, 'data-col': name }, ...children);

/**
 * @param {string} caption
 * @param {HTMLTableRowElement[]} rows
 */
function table(caption, rows) {
  const heads = ['Label', 'May', 'Key', 'Created', 'Last used', 'Status'];
  return h(
    'table',
    { class: 'keys' },
    h('caption', { class: 'visually-hidden' }, caption),
    h('thead', null, h('tr', null, ...heads.map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', null, ...rows),
  );
}

/**
 * @param {RemoteKey | AdminKey} key
 * @param {Node} label
 * @param {HTMLButtonElement | null} revoke
 */
function keyRow(key, label, revoke) {
  const status = key.revoked_at
    ? h('span', { class: 'revoked' }, 'Revoked ', when(key.revoked_at))
    : h('span', { class: 'status-line' }, h('span', { class: 'badge active' }, 'Active'), revoke);
  return h(
    'tr',
    { 'data-key-id': String(key.id), 'data-state': key.revoked_at ? 'revoked' : 'active' },
    h('th', { scope: 'row', 'data-label': 'Label', 'data-col': 'label' }, label),
    cell('May', 'scopes', scopeBadges(key.scopes)),
    cell('Key', 'prefix', h('code', { class: 'prefix' }, `${key.prefix}…`)),
    cell('Created', 'created', when(key.created_at)),
    cell('Last used', 'last-used', lastUsed(key.last_used_at)),
    cell('Status', 'status', status),
  );
}

/**
 * A key's confirmation goes in a row of its own under the key's, the table's full width, while the Revoke button
 * waits hidden (the status cell is too narrow for a question and two buttons).
 * @param {HTMLButtonElement} trigger
 * @returns {import('./confirm.js').Mount}
 */
const belowRow = (trigger) => (group) => {
  const row = /** @type {HTMLTableRowElement} */ (trigger.closest('tr'));
  const below = h('tr', { class: 'confirm-row' }, h('td', { colspan: '6' }, group));
  row.after(below);
  trigger.hidden = true;
  return () => {
    below.remove();
    trigger.hidden = false;
  };
};

/** @param {string} text @param {string} name */
const revokeButton = (text, name) =>
  h(
    'button',
    {
      type: 'button',
      class: 'btn btn-secondary btn-small',
      'data-action': 'revoke',
      'aria-label': `Revoke ${name}`,
    },
    text,
  );

/**
 * @param {PageContext & { ownKeyRevoked: () => void, remoteKeyRevoked: (id: number) => void }} ctx
 */
export function createKeysSection(ctx) {
  const remoteList = $('keys-list');
  const adminList = $('admin-keys-list');
  const error = $('keys-error');

  /** @param {RemoteKey} key */
  function remoteRow(key) {
    const name = key.label ?? `key ${key.prefix}`;
    const revoke = key.revoked_at ? null : revokeButton('Revoke…', `“${name}”`);
    revoke?.addEventListener('click', () =>
      confirmInPlace(
        revoke,
        {
          question: `Revoke “${name}”? The assistant using it stops working at once.`,
          action: 'Revoke key',
          run: async () => {
            const admin = ctx.key();
            if (!admin) return (ctx.keyRefused(), 'done');
            try {
              await revokeRemoteKey(admin, key.id);
            } catch (err) {
              failIn(ctx, err, error);
              return 'keep';
            }
            announce(`Key “${name}” revoked. It no longer works.`);
            ctx.remoteKeyRevoked(key.id);
            await load();
            ctx.changed();
            focusRow(remoteList, key.id);
            return 'done';
          },
        },
        belowRow(revoke),
      ),
    );
    return keyRow(
      key,
      key.label ? document.createTextNode(key.label) : h('span', { class: 'muted' }, 'No label'),
      revoke,
    );
  }

  /** @param {AdminKey} key */
  function adminRow(key) {
    const revoke = key.revoked_at ? null : revokeButton('Revoke…', `the admin key of ${key.label}`);
    const ownWarning = key.current
      ? ' This is the key you are using: this page will ask for another one.'
      : '';
    /** @param {boolean} confirmLast */
    const run = async (confirmLast) => {
      const admin = ctx.key();
      if (!admin) return /** @type {const} */ ('done');
      try {
        await revokeAdminKey(admin, key.id, confirmLast);
      } catch (err) {
        if (err instanceof ApiError && err.code === 'last-access-admin') {
          return {
            question:
              'This is the last admin key that may manage remote access. Once it is revoked, only your platform operator can give anyone access to these settings again.',
            action: 'Revoke it anyway',
            run: () => run(true),
          };
        }
        failIn(ctx, err, error);
        return 'keep';
      }
      if (key.current) {
        ctx.ownKeyRevoked();
        return 'done';
      }
      announce(`The admin key of ${key.label} is revoked.`);
      await load();
      ctx.changed();
      focusRow(adminList, key.id);
      return 'done';
    };
    revoke?.addEventListener('click', () =>
      confirmInPlace(
        revoke,
        {
          question: `Revoke the admin key of ${key.label}? It can no longer open these settings or the review queue.${ownWarning}`,
          action: 'Revoke key',
          run: () => run(false),
        },
        belowRow(revoke),
      ),
    );
    // an address may break after its @ rather than anywhere
    const [user, domain] = key.label.split(/@(.*)/s);
    const label = h(
      'span',
      null,
      domain === undefined ? key.label : h('span', null, `${user}@`, h('wbr', null), domain),
      key.current ? h('span', { class: 'badge current' }, 'This key') : null,
    );
    return keyRow(key, label, revoke);
  }

  /** After a revoke the row is re-rendered: the focus goes to it rather than to the top of the page. */
  function focusRow(/** @type {HTMLElement} */ list, /** @type {number} */ id) {
    const row = /** @type {HTMLElement | null} */ (list.querySelector(`tr[data-key-id="${id}"] th`));
    if (row) {
      row.tabIndex = -1;
      row.focus();
    }
  }

  async function load() {
    const key = ctx.key();
    if (!key) return;
    remoteList.setAttribute('aria-busy', 'true');
    try {
      const [remote, admin] = await Promise.all([listRemoteKeys(key), listAdminKeys(key)]);
      showError(error, null);
      remoteList.replaceChildren(
        remote.keys.length
          ? table('Assistant keys', remote.keys.map(remoteRow))
          : h('p', { class: 'empty-line' }, 'No assistant keys yet. Create one above.'),
      );
      adminList.replaceChildren(table('Admin keys', admin.keys.map(adminRow)));
    } catch (err) {
      failIn(ctx, err, error);
    } finally {
      remoteList.removeAttribute('aria-busy');
    }
  }

  $('keys-refresh').addEventListener('click', () => void load());
  return {
    load,
    reset() {
      remoteList.replaceChildren();
      adminList.replaceChildren();
      showError(error, null);
    },
  };
}
