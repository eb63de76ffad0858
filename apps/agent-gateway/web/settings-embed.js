// The Settings tab's "Embed on a website" section of an assistant's card (docs/embedding.md), for whoever may
// manage Porter (the admin scope, or the operator): the assistant's embed keys with the websites each works on,
// whether it may propose changes, whether it takes only visitors the website signs in, its limits and when it was
// last used; a form to make one; and Revoke, asked in place.
//
// "Let it propose changes" ticks "Only visitors your site signs in" and locks it: a key that can propose must require
// a visitor token (the gateway refuses one that does not), since the key and an Origin alone do not keep others
// out. Unticking proposals gives the box back as the user last set it.
//
// A new key's snippet, key and visitor secret come in the answer that made it and nowhere else: they are shown
// once, in this page's memory only (never stored), with copy buttons, until the user says they are done.
import { ApiError } from './chat-api.js';
import { confirmInPlace, copyToClipboard, el, formatDate } from './dom.js';
import { createEmbedKey, listEmbedKeys, revokeEmbedKey } from './embed-keys-api.js';

/** @typedef {import('./embed-keys-api.js').EmbedKey} EmbedKey */
/** @typedef {import('./embed-keys-api.js').CreatedEmbedKey} CreatedEmbedKey */
/** @typedef {import('./embed-keys-api.js').EmbedBudgets} EmbedBudgets */

// As packages/contracts/src/embed.ts (EMBED_KEY_LIMITS); the gateway has the last word.
const MAX_ORIGINS = 10;
const LABEL_MAX = 80;
/** @type {Array<{ name: keyof EmbedBudgets, label: string, hint: string, min: number, max: number, value: number }>} */
const BUDGETS = [
  {
    name: 'visitorPerMinute',
    label: 'Messages a minute from one visitor',
    hint: 'From 1 to 600.',
    min: 1,
    max: 600,
    value: 10,
  },
  {
    name: 'ipPerMinute',
    label: 'Messages a minute from one network address',
    hint: 'From 1 to 6,000. Everyone in one office usually shares an address.',
    min: 1,
    max: 6000,
    value: 30,
  },
  {
    name: 'workspacePerDay',
    label: 'Messages a day, all your website chats together',
    hint: 'From 1 to 1,000,000. One count for all your embed keys: the smallest daily limit among them is the one that applies.',
    min: 1,
    max: 1_000_000,
    value: 2000,
  },
];
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
 * What the user typed as one website, as the exact origin the gateway wants (`https://host[:port]`), or why not.
 * A copied address's trailing slash and capitals are tidied; a page's path is not dropped silently.
 * @param {string} line
 * @returns {{ origin: string } | { problem: string }}
 */
function toOrigin(line) {
  let url;
  try {
    url = new URL(line);
  } catch {
    return {
      problem: `“${line}” is not a full web address: write it with https://, like https://www.example.co.uk.`,
    };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { problem: `“${line}” is not a website address: it should start with https://.` };
  }
  if (url.pathname !== '/' || url.search || url.hash || url.username) {
    return {
      problem: `“${line}” is a page, not a website: use the address without the page, ${url.origin}.`,
    };
  }
  return { origin: url.origin };
}

/**
 * The failure to make a key in words, and the field it is about.
 * @param {unknown} err
 * @param {string[]} origins as sent
 * @returns {{ message: string, field: string | null }}
 */
function describeCreateError(err, origins) {
  if (!(err instanceof ApiError)) return { message: 'Something went wrong. Try again.', field: null };
  if (err.code !== 'validation-failed') return { message: err.message, field: null };
  const fields = /** @type {import('./chat-api.js').FieldsApiError} */ (err).fields ?? [];
  const first = fields[0];
  if (!first) return { message: err.message, field: null };
  const origin = /^#\/origins\/(\d+)$/.exec(first.pointer);
  if (origin) {
    return {
      message: `The website address ${origins[Number(origin[1])] ?? ''} cannot be used: it ${first.detail}.`,
      field: 'origins',
    };
  }
  if (first.pointer === '#/origins')
    return { message: `The website addresses are not right: they ${first.detail}.`, field: 'origins' };
  const budget = BUDGETS.find((b) => first.pointer === `#/budgets/${b.name}`);
  if (budget) return { message: `${budget.label}: ${first.detail}.`, field: budget.name };
  if (first.pointer === '#/label') return { message: `The name ${first.detail}.`, field: 'label' };
  return { message: err.message, field: null };
}

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
      const revoke = el('button', { type: 'button', class: 'button button-secondary', text: 'Revoke' });
      revoke.setAttribute('aria-label', `Revoke ${keyName(k)} (${k.keyPrefix}…)`);
      revoke.addEventListener('click', () => confirmRevoke(k, actions, revoke));
      actions.append(revoke);
      item.append(actions);
    }
    return item;
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
      body.replaceChildren(renderForm());
      return;
    }
    const make = el('button', {
      type: 'button',
      class: 'button button-secondary',
      text: 'Make an embed key',
    });
    make.addEventListener('click', () => {
      formOpen = true;
      showStatus('', 'info');
      renderBody();
      /** @type {HTMLElement | null} */ (body.querySelector('textarea'))?.focus();
    });
    body.replaceChildren(make);
  }

  /**
   * @param {string} name @param {string} label @param {string} hint @param {HTMLInputElement | HTMLTextAreaElement} input
   */
  function field(name, label, hint, input) {
    const id = `${base}-${name}`;
    input.id = id;
    input.name = name;
    input.setAttribute('aria-describedby', `${id}-hint`);
    input.addEventListener('input', () => {
      // the error said what was wrong with this field: once it is being put right, the message goes too
      if (input.getAttribute('aria-invalid') === 'true' && status.dataset.kind === 'error')
        showStatus('', 'info');
      input.removeAttribute('aria-invalid');
    });
    return el('div', { class: 'field' }, [
      el('label', { for: id, text: label }),
      input,
      el('p', { id: `${id}-hint`, class: 'field-hint', text: hint }),
    ]);
  }

  function renderForm() {
    const inputs = /** @type {Record<string, HTMLInputElement | HTMLTextAreaElement>} */ ({});
    inputs.origins = el('textarea', {
      class: 'field-input field-mono embed-origins-input',
      rows: '3',
      autocomplete: 'off',
      autocapitalize: 'none',
      spellcheck: 'false',
      required: '',
    });
    inputs.label = el('input', {
      type: 'text',
      class: 'field-input',
      maxlength: String(LABEL_MAX),
      autocomplete: 'off',
    });
    const proposeId = `${base}-propose`;
    const warningId = `${proposeId}-warning`;
    const propose = el('input', {
      id: proposeId,
      type: 'checkbox',
      class: 'choice-input',
      'aria-describedby': warningId,
    });
    const signedInId = `${base}-signed-in`;
    const signedIn = el('input', {
      id: signedInId,
      type: 'checkbox',
      class: 'choice-input',
      'aria-describedby': `${signedInId}-hint`,
    });
    // ticked and locked while "Let it propose changes" is; given back as the user left it otherwise
    const signedInHint = el('p', {
      id: `${signedInId}-hint`,
      class: 'field-hint choice-hint',
    });
    const SIGNED_IN_HINT =
      'Others are asked to sign in; your site vouches for each visitor with the visitor secret.';
    let signedInChoice = false;
    signedIn.addEventListener('change', () => (signedInChoice = signedIn.checked));
    function followPropose() {
      signedIn.disabled = propose.checked;
      signedIn.checked = propose.checked || signedInChoice;
      signedInHint.textContent = propose.checked
        ? `Required for a key that can propose changes. ${SIGNED_IN_HINT}`
        : SIGNED_IN_HINT;
    }
    propose.addEventListener('change', followPropose);
    followPropose();
    const limits = el('details', { class: 'advanced embed-limits' }, [
      el('summary', { class: 'advanced-summary', text: 'Limits' }),
      el('p', {
        class: 'field-hint',
        text: 'How much visitors may ask, so that a busy or misused website cannot run up your costs. A visitor over a limit is asked to wait.',
      }),
    ]);
    for (const b of BUDGETS) {
      inputs[b.name] = el('input', {
        type: 'text',
        inputmode: 'numeric',
        class: 'field-input field-mono embed-budget-input',
        maxlength: '7',
        autocomplete: 'off',
      });
      inputs[b.name].value = String(b.value);
      limits.append(field(b.name, b.label, b.hint, inputs[b.name]));
    }
    const submit = el('button', { type: 'submit', class: 'button button-primary', text: 'Make key' });
    const cancel = el('button', { type: 'button', class: 'button button-secondary', text: 'Cancel' });
    cancel.addEventListener('click', () => {
      formOpen = false;
      showStatus('', 'info');
      renderBody();
      /** @type {HTMLElement | null} */ (body.querySelector('button'))?.focus();
    });
    const form = el(
      'form',
      {
        class: 'bind-form channel-form embed-form',
        method: 'post',
        action: '#',
        novalidate: '',
        autocomplete: 'off',
      },
      [
        el('fieldset', { class: 'bind-fieldset' }, [
          el('legend', { text: 'Make an embed key' }),
          field(
            'origins',
            'Websites it may appear on',
            `One per line, up to ${MAX_ORIGINS}: the site’s address as it shows in the browser, like https://www.example.co.uk (with the port, if it has one). Only pages of these websites can show the chat.`,
            inputs.origins,
          ),
          field(
            'label',
            'Name (optional)',
            'For you, to tell your keys apart, like Property pages.',
            inputs.label,
          ),
          el('div', { class: 'embed-propose' }, [
            el('p', { class: 'choice' }, [
              propose,
              el('label', { for: proposeId, class: 'choice-label', text: 'Let it propose changes' }),
            ]),
            el('p', {
              id: warningId,
              class: 'embed-warning',
              text: `Anyone your website signs in could then ask ${who} to propose changes to your records, such as a new deal, a certificate’s dates or a payment. Nothing changes until someone approves it in your property platform’s review queue, but leave this off unless only your own staff sign in to these websites. Such a key only works for signed-in visitors.`,
            }),
          ]),
          el('div', { class: 'choice embed-signed-in' }, [
            signedIn,
            el('label', {
              for: signedInId,
              class: 'choice-label',
              text: 'Only visitors your site signs in (a visitor token is required)',
            }),
            signedInHint,
          ]),
          limits,
        ]),
        el('div', { class: 'form-actions' }, [submit, cancel]),
      ],
    );

    /** @param {string | null} name */
    function markInvalid(name) {
      for (const [key, input] of Object.entries(inputs)) {
        if (key === name) input.setAttribute('aria-invalid', 'true');
        else input.removeAttribute('aria-invalid');
      }
      if (name && BUDGETS.some((b) => b.name === name)) limits.open = true;
    }
    /** @param {string} name @param {string} message */
    function refuse(name, message) {
      markInvalid(name);
      showStatus(message, 'error');
      inputs[name]?.focus();
    }

    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      if (form.getAttribute('aria-busy') === 'true') return;
      const lines = inputs.origins.value
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean);
      if (lines.length === 0)
        return refuse(
          'origins',
          'Enter the address of at least one website, like https://www.example.co.uk.',
        );
      if (lines.length > MAX_ORIGINS)
        return refuse(
          'origins',
          `A key works on up to ${MAX_ORIGINS} websites: make another key for the rest.`,
        );
      /** @type {string[]} */
      const origins = [];
      for (const line of lines) {
        const parsed = toOrigin(line);
        if ('problem' in parsed) return refuse('origins', parsed.problem);
        if (!origins.includes(parsed.origin)) origins.push(parsed.origin);
      }
      /** @type {Partial<EmbedBudgets>} */
      const budgets = {};
      for (const b of BUDGETS) {
        const text = inputs[b.name].value.trim().replace(/[,\s]/g, '');
        const n = Number(text);
        if (!/^\d+$/.test(text) || n < b.min || n > b.max)
          return refuse(b.name, `${b.label}: enter a whole number from ${count(b.min)} to ${count(b.max)}.`);
        budgets[b.name] = n;
      }
      const label = inputs.label.value.trim();
      markInvalid(null);
      form.setAttribute('aria-busy', 'true');
      submit.setAttribute('aria-disabled', 'true');
      showStatus('Making the key…', 'pending');
      try {
        const made = await createEmbedKey(workspaceId, worker.id, {
          origins,
          ...(label ? { label } : {}),
          allowProposals: propose.checked,
          requireVisitorToken: signedIn.checked,
          budgets,
        });
        keys = [made.key, ...keys.filter((k) => k.id !== made.key.id)];
        formOpen = false;
        renderList();
        renderBody();
        showStatus('', 'info');
        showCreated(made);
      } catch (err) {
        const { message, field: name } = describeCreateError(err, origins);
        markInvalid(name);
        showStatus(message, 'error');
        if (name) inputs[name]?.focus();
      } finally {
        form.setAttribute('aria-busy', 'false');
        submit.setAttribute('aria-disabled', 'false');
      }
    });
    return form;
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
