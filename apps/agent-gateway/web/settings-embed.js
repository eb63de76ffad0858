// The Settings tab's "Embed on a website" section of an assistant's card (docs/embedding.md), for whoever may
// manage Porter (the admin scope, or the operator): the assistant's embed keys with the websites each works on,
// whether it may propose changes, whether it takes only visitors the website signs in, its limits and when it was
// last used; a form to make one (embed-key-form.js); Edit, the same form in place with the key's settings (the key,
// and so the snippet on the website, stay the same); and Revoke, asked in place.
//
// A new key's snippet, key and visitor secret come in the answer that made it and nowhere else: they are shown
// once, in this page's memory only (never stored), with copy buttons, until the user says they are done.
import { ApiError } from './chat-api.js';
import { confirmInPlace, copyToClipboard, el, formatDate } from './dom.js';
import { createEmbedKeyForm } from './embed-key-form.js';
import { createEmbedKey, listEmbedKeys, revokeEmbedKey, updateEmbedKey } from './embed-keys-api.js';

/** @typedef {import('./embed-keys-api.js').EmbedKey} EmbedKey */
/** @typedef {import('./embed-keys-api.js').CreatedEmbedKey} CreatedEmbedKey */
/** @typedef {import('./embed-keys-api.js').EmbedBudgets} EmbedBudgets */
/** @typedef {import('./embed-keys-api.js').EmbedKeyRequest} EmbedKeyRequest */

const COPIED_MS = 2000;

/** @param {unknown} err */
const errorText = (err) => (err instanceof ApiError ? err.message : 'Something went wrong. Try again.');
const count = (/** @type {number} */ n) => n.toLocaleString('en-GB');

/** @param {EmbedKey} k */
const keyName = (k) => k.label || 'Website chat';

/** @param {string[]} items */
function inWords(items) {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** @param {EmbedBudgets} b */
const budgetWords = (b) =>
  `At most ${count(b.visitorPerMinute)} messages a minute per visitor, ${count(b.ipPerMinute)} per network address and ${count(b.workspacePerDay)} a day across all your website chats (the smallest daily limit of your keys applies to all).`;

/**
 * The "Embed on a website" section of one assistant's card. It loads the assistant's keys itself.
 * @param {{ workspaceId: string, worker: { id: string, name: string }, who: string }} o
 * @returns {HTMLElement}
 */
export function createEmbedSection({ workspaceId, worker, who }) {
  const base = `worker-${worker.id}-embed`;
  const headingId = `${base}-heading`;
  const list = el('ul', { class: 'embed-key-list', 'aria-labelledby': headingId });
  const revokedList = el('ul', { class: 'embed-key-list' });
  const revokedSummary = el('summary', { class: 'advanced-summary' });
  const revoked = el('details', { class: 'advanced embed-revoked' }, [revokedSummary, revokedList]);
  const created = el('div', { class: 'embed-created-slot' });
  const body = el('div', { class: 'channel-body' });
  const status = el('p', { class: 'form-status', role: 'status', 'aria-live': 'polite' });
  const section = el(
    'section',
    { class: 'channel-section', 'aria-labelledby': headingId, 'aria-busy': 'true', 'data-section': 'embed' },
    [
      el('h4', { id: headingId, class: 'channel-heading', text: 'Embed on a website' }),
      el('p', {
        class: 'channel-intro',
        text: `Put a chat with ${who} on your own website or intranet: visitors see a chat button in the corner of the page. Each key works only on the websites you name, and stops working when you revoke it.`,
      }),
      list,
      created,
      body,
      status,
      revoked,
    ],
  );

  /** @type {EmbedKey[]} */
  let keys = [];
  let formOpen = false;
  // the key whose settings are open in its place in the list, and that form (kept while the list is drawn again)
  /** @type {{ id: string, form: HTMLFormElement } | null} */
  let editing = null;

  /** @param {string} text @param {'success' | 'error' | 'pending' | 'info'} kind */
  function showStatus(text, kind) {
    status.textContent = text;
    status.dataset.kind = kind;
  }

  /** @param {EmbedKey} k */
  function renderKey(k) {
    const live = !k.revokedAt;
    const head = el('div', { class: 'device-head' }, [
      el('span', { class: 'device-name', text: keyName(k) }),
      el('span', { class: 'embed-key-prefix', 'data-fact': 'key-prefix', text: `${k.keyPrefix}…` }),
    ]);
    // a revoked key is history: what it was called, where it worked and when it stopped
    head.append(
      live
        ? el('span', {
            class: 'embed-access',
            'data-fact': 'access',
            'data-access': k.allowProposals ? 'propose' : 'read-only',
            text: k.allowProposals ? 'Can propose changes' : 'Read-only',
          })
        : el('span', {
            class: 'embed-access',
            'data-fact': 'access',
            'data-access': 'revoked',
            text: 'Revoked',
          }),
    );
    if (live && k.requireVisitorToken) {
      head.append(
        el('span', {
          class: 'embed-access',
          'data-fact': 'visitors',
          'data-access': 'signed-in',
          text: 'Signed-in visitors only',
        }),
      );
    }
    const sites = el('p', { class: 'embed-key-origins', 'data-fact': 'origins' }, [
      live ? 'Works on ' : 'Worked on ',
    ]);
    k.origins.forEach((origin, i) => {
      if (i > 0) sites.append(i === k.origins.length - 1 ? ' and ' : ', ');
      sites.append(el('span', { class: 'embed-origin', text: origin }));
    });
    const used = k.revokedAt
      ? `Revoked ${formatDate(k.revokedAt)}`
      : k.lastUsedAt
        ? `Last used ${formatDate(k.lastUsedAt)}`
        : 'Not used yet';
    const item = el(
      'li',
      { class: 'embed-key', 'data-embed-key-id': k.id, 'data-state': live ? 'live' : 'revoked' },
      [head, sites],
    );
    if (live && editing?.id === k.id) {
      item.dataset.editing = 'true';
      item.append(editing.form);
      return item;
    }
    if (live) {
      item.append(
        el('p', {
          class: 'device-facts',
          'data-fact': 'toolset',
          text: k.allowProposals
            ? `${who} answers questions and may propose changes, which wait for review on your property platform.`
            : `${who} answers questions only: it cannot propose changes from this website.`,
        }),
        el('p', {
          class: 'device-facts',
          'data-fact': 'who',
          text: k.requireVisitorToken
            ? 'Only visitors your website signs in can use it: anyone else is asked to sign in.'
            : 'Anyone who opens these websites can use it, signed in or not.',
        }),
        el('p', { class: 'device-facts', 'data-fact': 'budgets', text: budgetWords(k.budgets) }),
      );
    }
    item.append(
      el('p', {
        class: 'device-facts',
        'data-fact': 'used',
        text: `Made ${formatDate(k.createdAt)} · ${used}`,
      }),
    );
    if (live) {
      const actions = el('div', { class: 'device-actions' });
      const edit = el('button', { type: 'button', class: 'button button-secondary', text: 'Edit' });
      edit.setAttribute('aria-label', `Edit ${keyName(k)} (${k.keyPrefix}…)`);
      edit.addEventListener('click', () => openEdit(k));
      const revoke = el('button', { type: 'button', class: 'button button-secondary', text: 'Revoke' });
      revoke.setAttribute('aria-label', `Revoke ${keyName(k)} (${k.keyPrefix}…)`);
      revoke.addEventListener('click', () => confirmRevoke(k, actions, revoke));
      actions.append(edit, revoke);
      item.append(actions);
    }
    return item;
  }

  /** @param {string} id */
  const editButton = (id) =>
    /** @type {HTMLElement | null} */ (list.querySelector(`[data-embed-key-id="${id}"] button`));

  /** Opens `k`'s settings in its place in the list (one form at a time: a half-made new key is closed). @param {EmbedKey} k */
  function openEdit(k) {
    formOpen = false;
    renderBody();
    showStatus('', 'info');
    const form = createEmbedKeyForm({
      base,
      who,
      key: k,
      status,
      showStatus,
      submit: async (request) => {
        const saved = await updateEmbedKey(workspaceId, worker.id, k.id, request);
        keys = keys.map((x) => (x.id === saved.id ? saved : x));
        editing = null;
        renderList();
        showStatus(
          `${keyName(saved)} was saved: it now works on ${inWords(saved.origins)}. The snippet on your site stays the same.`,
          'success',
        );
        editButton(saved.id)?.focus();
      },
      cancel: () => closeEdit(k.id),
    });
    editing = { id: k.id, form };
    renderList();
    /** @type {HTMLElement | null} */ (form.querySelector('textarea'))?.focus();
  }

  /** @param {string} id the key whose Edit button takes the focus back */
  function closeEdit(id) {
    editing = null;
    showStatus('', 'info');
    renderList();
    editButton(id)?.focus();
  }

  /** @param {EmbedKey} k @param {HTMLElement} actions @param {HTMLButtonElement} button */
  function confirmRevoke(k, actions, button) {
    const question = `Revoke ${keyName(k)}? The chat stops working on ${inWords(k.origins)} within a few seconds. To embed it again you make a new key.`;
    confirmInPlace(
      actions,
      button,
      question,
      async () => {
        try {
          const done = await revokeEmbedKey(workspaceId, worker.id, k.id);
          keys = keys.map((x) => (x.id === done.id ? done : x));
          if (created.dataset.keyId === k.id) closeCreated();
          renderList();
          showStatus(
            `${keyName(k)} was revoked: the chat no longer works on ${inWords(k.origins)}.`,
            'success',
          );
          // the key's Revoke button is gone with it: the way to make another one is the natural next step
          /** @type {HTMLElement | null} */ (body.querySelector('button'))?.focus();
          return true;
        } catch (err) {
          showStatus(`Could not revoke ${keyName(k)}. ${errorText(err)}`, 'error');
          return false;
        }
      },
      'Yes, revoke',
    );
  }

  function renderList() {
    const live = keys.filter((k) => !k.revokedAt);
    const gone = keys.filter((k) => k.revokedAt);
    list.replaceChildren(...live.map(renderKey));
    list.hidden = live.length === 0;
    revokedList.replaceChildren(...gone.map(renderKey));
    revokedSummary.textContent = `Revoked keys (${gone.length})`;
    revoked.hidden = gone.length === 0;
  }

  function renderBody() {
    if (formOpen) {
      body.replaceChildren(
        createEmbedKeyForm({
          base,
          who,
          key: null,
          status,
          showStatus,
          submit: async (request) => {
            const made = await createEmbedKey(
              workspaceId,
              worker.id,
              /** @type {EmbedKeyRequest} */ (request),
            );
            keys = [made.key, ...keys.filter((k) => k.id !== made.key.id)];
            formOpen = false;
            renderList();
            renderBody();
            showStatus('', 'info');
            showCreated(made);
          },
          cancel: () => {
            formOpen = false;
            showStatus('', 'info');
            renderBody();
            /** @type {HTMLElement | null} */ (body.querySelector('button'))?.focus();
          },
        }),
      );
      return;
    }
    const make = el('button', {
      type: 'button',
      class: 'button button-secondary',
      text: 'Make an embed key',
    });
    make.addEventListener('click', () => {
      formOpen = true;
      if (editing) {
        editing = null;
        renderList();
      }
      showStatus('', 'info');
      renderBody();
      /** @type {HTMLElement | null} */ (body.querySelector('textarea'))?.focus();
    });
    body.replaceChildren(make);
  }

  /**
   * A value to copy: its words, the value as it is, and a Copy button beside it that says when it has copied.
   * @param {string} name @param {string} title @param {string} value @param {string} copyLabel
   * @param {string} [hint]
   */
  function copyBlock(name, title, value, copyLabel, hint) {
    const valueId = `${base}-created-${name}`;
    const words = el('span', { text: copyLabel, 'aria-live': 'polite' });
    const button = el('button', { type: 'button', class: 'button button-secondary embed-copy' }, [words]);
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    button.addEventListener('click', async () => {
      const copied = await copyToClipboard(value);
      words.textContent = copied ? 'Copied' : 'Could not copy: select it and copy it yourself';
      clearTimeout(timer);
      timer = setTimeout(() => (words.textContent = copyLabel), COPIED_MS);
    });
    const block = el('div', { class: 'embed-copy-block', 'data-copy': name }, [
      el('p', { id: `${valueId}-title`, class: 'embed-copy-title', text: title }),
      el('div', { class: 'embed-copy-row' }, [
        el('pre', { id: valueId, class: 'embed-value', 'aria-labelledby': `${valueId}-title` }, [
          el('code', { text: value }),
        ]),
        button,
      ]),
    ]);
    if (hint) block.append(el('p', { class: 'field-hint', text: hint }));
    return block;
  }

  /** @param {CreatedEmbedKey} made */
  function showCreated(made) {
    const titleId = `${base}-created-title`;
    const title = el('h5', {
      id: titleId,
      class: 'embed-created-title',
      tabindex: '-1',
      text: 'Copy these now',
    });
    const done = el('button', {
      type: 'button',
      class: 'button button-primary',
      text: 'Done: I have copied them',
    });
    done.addEventListener('click', () => {
      closeCreated();
      /** @type {HTMLElement | null} */ (body.querySelector('button'))?.focus();
    });
    created.dataset.keyId = made.key.id;
    created.replaceChildren(
      el('div', { class: 'embed-created', role: 'group', 'aria-labelledby': titleId }, [
        title,
        el('p', {
          class: 'embed-created-lead',
          text: `${keyName(made.key)} is ready. Porter shows the key and its secret only this once: if they are lost, revoke the key and make a new one.`,
        }),
        copyBlock(
          'snippet',
          'Paste this into your website’s pages, just before </body>',
          made.snippet,
          'Copy the line',
          'Your web developer or website builder can add it to every page, or only to the pages that should have the chat.',
        ),
        copyBlock('key', 'Embed key (it is in the line above too)', made.embedKey, 'Copy the key'),
        copyBlock(
          'secret',
          'Visitor secret: for your website’s server only',
          made.visitorSecret,
          'Copy the secret',
          `Needed only if your website signs its visitors in: your developer uses it on the server to vouch for each visitor, so that ${who} knows who is asking. Never put it in a web page.`,
        ),
        el('div', { class: 'form-actions' }, [done]),
      ]),
    );
    title.focus();
  }

  function closeCreated() {
    created.replaceChildren();
    delete created.dataset.keyId;
  }

  async function load() {
    try {
      keys = (await listEmbedKeys(workspaceId, worker.id)).embedKeys ?? [];
      renderList();
      renderBody();
    } catch (err) {
      const retry = el('button', { type: 'button', class: 'button button-secondary', text: 'Try again' });
      retry.addEventListener('click', () => {
        section.setAttribute('aria-busy', 'true');
        void load();
      });
      body.replaceChildren(
        el('p', { class: 'settings-error', text: `Could not load the embed keys. ${errorText(err)}` }),
        retry,
      );
    } finally {
      section.setAttribute('aria-busy', 'false');
    }
  }

  list.hidden = true;
  revoked.hidden = true;
  void load();
  return section;
}
