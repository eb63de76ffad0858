// The form that makes an embed key, and edits one (docs/embedding.md), for the "Embed on a website" section
// (settings-embed.js): the websites, a name, whether it may propose changes, whether it takes only visitors the
// website signs in, and its limits. Editing opens the same form filled with the key's settings; the key and its
// visitor secret stay, so the snippet on the website does not change.
//
// "Let it propose changes" ticks "Only visitors your site signs in" and locks it: a key that can propose must require
// a visitor token (the gateway refuses one that does not), since the key and an Origin alone do not keep others
// out. Unticking proposals gives the box back as the user last set it (as the key had it, when editing).
import { ApiError } from './chat-api.js';
import { el } from './dom.js';

/** @typedef {import('./embed-keys-api.js').EmbedKey} EmbedKey */
/** @typedef {import('./embed-keys-api.js').EmbedBudgets} EmbedBudgets */
/** @typedef {import('./embed-keys-api.js').EmbedKeyRequest} EmbedKeyRequest */
/**
 * @typedef {object} FormContext
 * @property {string} base the id prefix of the section's elements
 * @property {string} who the assistant's name, in the warning about proposals
 * @property {EmbedKey | null} key the key being edited, or null to make one
 * @property {HTMLElement} status the section's status line
 * @property {(text: string, kind: 'success' | 'error' | 'pending' | 'info') => void} showStatus
 * @property {(body: EmbedKeyRequest) => Promise<void>} submit sends the settings; an ApiError is shown in words
 * @property {() => void} cancel
 */

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
const count = (/** @type {number} */ n) => n.toLocaleString('en-GB');

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
 * The failure to make or save a key in words, and the field it is about.
 * @param {unknown} err
 * @param {string[]} origins as sent
 * @returns {{ message: string, field: string | null }}
 */
function describeError(err, origins) {
  if (!(err instanceof ApiError)) return { message: 'Something went wrong. Try again.', field: null };
  // the gateway's word on a proposing key that takes anyone: about the visitors box, which the form keeps ticked
  if (err.code === 'embed-proposals-need-token')
    return {
      message:
        'A key that can propose changes must be for signed-in visitors only: tick that box, or stop it proposing.',
      field: null,
    };
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
 * A labelled input with its hint; typing in a field marked wrong takes its error message away.
 * @param {FormContext} o @param {string} name @param {string} label @param {string} hint
 * @param {HTMLInputElement | HTMLTextAreaElement} input
 */
function field(o, name, label, hint, input) {
  const { base, status, showStatus } = o;
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

/**
 * The form, filled with `key`'s settings when it edits one.
 * @param {FormContext} o
 * @returns {HTMLFormElement}
 */
export function createEmbedKeyForm(o) {
  const { base, who, key, showStatus, submit: send, cancel: onCancel } = o;
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
  let signedInChoice = key?.requireVisitorToken ?? false;
  propose.checked = key?.allowProposals ?? false;
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
    inputs[b.name].value = String(key ? key.budgets[b.name] : b.value);
    limits.append(field(o, b.name, b.label, b.hint, inputs[b.name]));
  }
  if (key) {
    inputs.origins.value = key.origins.join('\n');
    inputs.label.value = key.label;
  }
  const submit = el('button', {
    type: 'submit',
    class: 'button button-primary',
    text: key ? 'Save' : 'Make key',
  });
  const cancel = el('button', { type: 'button', class: 'button button-secondary', text: 'Cancel' });
  cancel.addEventListener('click', () => onCancel());
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
        el('legend', { text: key ? `Edit ${key.label || 'Website chat'}` : 'Make an embed key' }),
        ...(key
          ? [
              el('p', {
                class: 'field-hint embed-edit-note',
                text: 'The snippet on your site stays the same: the key and its visitor secret do not change. The new settings apply within a few seconds.',
              }),
            ]
          : []),
        field(
          o,
          'origins',
          'Websites it may appear on',
          `One per line, up to ${MAX_ORIGINS}: the site’s address as it shows in the browser, like https://www.example.co.uk (with the port, if it has one). Only pages of these websites can show the chat.`,
          inputs.origins,
        ),
        field(
          o,
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
      return refuse('origins', 'Enter the address of at least one website, like https://www.example.co.uk.');
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
    showStatus(key ? 'Saving…' : 'Making the key…', 'pending');
    try {
      await send({
        origins,
        // an edit sends the name as it is, so that emptying the box clears it
        ...(label || key ? { label } : {}),
        allowProposals: propose.checked,
        requireVisitorToken: signedIn.checked,
        budgets,
      });
    } catch (err) {
      const { message, field: name } = describeError(err, origins);
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
