// The Settings tab's WhatsApp section for the worker that answers this chat (docs/channels.md), beside Telegram:
// connect a WhatsApp Business number of a Meta app (phone number id, access token, app secret, a verify token of the
// user's choosing), put the callback URL into Meta, check the webhook as Meta will, pair the phone that should talk
// to Porter with a code, watch the status turn to connected, disconnect.
//
// The secrets are read from their fields only to go into the connect request's body, and the fields are emptied
// after every submit. The verify token is the one value the user must type again in Meta's dashboard, so the one
// given in this page is kept in memory (never in storage) to fill the webhook check; pairing codes likewise, as
// the list never carries them.
//
// While a channel waits for its chat, the list is fetched again every few seconds, only while the section is shown.
import { ApiError } from './chat-api.js';
import {
  checkWhatsAppWebhook,
  connectWhatsApp,
  deleteChannel,
  listChannels,
  newPairingCode,
  whatsappWebhookPath,
} from './channels-api.js';
import { el, formatDate, sectionShown, whenShownAgain } from './dom.js';

/** @typedef {import('./channels-api.js').Channel} Channel */
/** @typedef {import('./channels-api.js').Pairing} Pairing */

const POLL_MS = 3000;
// As packages/contracts/src/channels.ts (ConnectWhatsAppRequest); the Graph API has the last word.
const PHONE_ID_PATTERN = /^[0-9]{5,30}$/;
const MIN = { accessToken: 10, appSecret: 8, verifyToken: 8 };

/** Codes and verify tokens given in this page, by channel id: they outlive a re-render, not a reload. */
const issued = /** @type {Map<string, Pairing>} */ (new Map());
const verifyTokens = /** @type {Map<string, string>} */ (new Map());

/** @typedef {'phoneNumberId' | 'accessToken' | 'appSecret' | 'verifyToken'} FieldName */

/** @type {Record<FieldName, string>} */
const FIELD_WORDS = {
  phoneNumberId: 'phone number ID',
  accessToken: 'access token',
  appSecret: 'app secret',
  verifyToken: 'verify token',
};

/**
 * The chat that talks to Porter: the contact's name and number when WhatsApp gave both.
 * @param {Channel} c
 */
function chatName(c) {
  if (!c.chat) return 'your phone';
  const number = /^[0-9]+$/.test(c.chat.id) ? `+${c.chat.id}` : c.chat.id;
  return c.chat.title ? `${c.chat.title} (${number})` : number;
}

/**
 * When the code stops working, in words (24-hour time); null once it has.
 * @param {string} iso
 */
function expiryWords(iso, now = Date.now()) {
  const left = Date.parse(iso) - now;
  if (!(left > 0)) return null;
  const at = new Date(iso).toLocaleTimeString('en-GB', {
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  const minutes = Math.ceil(left / 60_000);
  const when = minutes <= 1 ? 'in less than a minute' : `in ${minutes} minutes`;
  return `The code works once and expires ${when} (at ${at}).`;
}

/**
 * The connect failure in words, and the field it is about.
 * @param {unknown} err
 * @returns {{ message: string, field: FieldName | null }}
 */
function describeConnectError(err) {
  if (!(err instanceof ApiError)) {
    return { message: 'Something went wrong while connecting. Try again.', field: null };
  }
  switch (err.code) {
    case 'channel-token-rejected':
      return {
        message: `${err.message} Nothing was connected: paste the access token and app secret again once the details are right.`,
        field: 'accessToken',
      };
    case 'validation-failed': {
      const fields = /** @type {import('./chat-api.js').FieldsApiError} */ (err).fields ?? [];
      const first = fields[0];
      const name = /** @type {FieldName | undefined} */ (first?.pointer.replace(/^#\//, ''));
      if (first && name && name in FIELD_WORDS)
        return { message: `The ${FIELD_WORDS[name]} ${first.detail}.`, field: name };
      return { message: err.message, field: null };
    }
    case 'channel-unreachable':
      return {
        message:
          'WhatsApp could not be reached, so nothing was connected. Check the internet connection of the computer Porter runs on, then paste the access token and app secret again and try again.',
        field: null,
      };
    case 'channel-already-connected':
      return {
        message: 'This WhatsApp number is already connected to another assistant. Disconnect it there first.',
        field: 'phoneNumberId',
      };
    default:
      return { message: err.message, field: null };
  }
}

/** @param {unknown} err */
const errorText = (err) => (err instanceof ApiError ? err.message : 'Something went wrong. Try again.');

/** A verify token of 24 letters and digits, for whoever has none in mind. */
function randomVerifyToken() {
  const alphabet = 'abcdefghijkmnpqrstuvwxyzACDEFGHJKLMNPQRSTUVWXYZ23456789';
  return [...crypto.getRandomValues(new Uint8Array(24))].map((b) => alphabet[b % alphabet.length]).join('');
}

/**
 * The WhatsApp section of one worker's card. It loads the worker's channels itself and stops checking on them once
 * it is taken out of the page.
 * @param {{ workspaceId: string, worker: { id: string, name: string } }} o
 * @returns {HTMLElement}
 */
export function createWhatsAppSection({ workspaceId, worker }) {
  const base = `worker-${worker.id}-whatsapp`;
  const headingId = `${base}-heading`;

  const heading = el('h4', { id: headingId, class: 'channel-heading', text: 'WhatsApp' });
  const intro = el('p', {
    class: 'channel-intro',
    text: 'Ask Porter from WhatsApp on your phone, through your business’s WhatsApp number in a Meta app.',
  });
  const body = el('div', { class: 'channel-body' });
  const status = el('p', { class: 'form-status', role: 'status', 'aria-live': 'polite' });
  const section = el(
    'section',
    {
      class: 'channel-section',
      'aria-labelledby': headingId,
      'aria-busy': 'true',
      'data-channel': 'whatsapp',
    },
    [heading, intro, body, status],
  );

  /** @type {Channel[]} */
  let channels = [];
  let loaded = false;
  /** @type {string | null} */
  let loadError = null;
  let busy = false;
  /** @type {ReturnType<typeof setTimeout> | null} */
  let timer = null;
  /** @type {HTMLElement[]} */
  let expiryLines = [];

  /** @param {string} text @param {string} kind */
  function showStatus(text, kind) {
    status.textContent = text;
    status.dataset.kind = kind;
  }

  /** @param {boolean} value */
  function setBusy(value) {
    busy = value;
    section.setAttribute('aria-busy', String(value));
    for (const b of section.querySelectorAll('button')) b.setAttribute('aria-disabled', String(value));
  }

  // --- checking on a pending channel ---------------------------------------------------------------------

  const waiting = () => channels.some((c) => c.status === 'pending_pairing');

  function schedule() {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    if (section.isConnected && sectionShown(section) && waiting())
      timer = setTimeout(() => void check(), POLL_MS);
  }

  async function check() {
    timer = null;
    if (!sectionShown(section)) return; // picked up again when the page or the tab is shown
    if (busy) return schedule();
    try {
      apply(await listChannels(workspaceId, worker.id));
    } catch {
      // tried again at the next check; the page keeps what it showed
    }
    refreshExpiry();
    schedule();
  }

  whenShownAgain(section, () => {
    if (timer === null && waiting()) void check();
  });

  /** @param {{ channels: Channel[] }} list */
  function apply(list) {
    const next = (Array.isArray(list?.channels) ? list.channels : []).filter((c) => c.type === 'whatsapp');
    for (const c of next) {
      const before = channels.find((p) => p.id === c.id);
      if (before?.status === 'pending_pairing' && c.status === 'connected') {
        showStatus(
          `Connected to ${chatName(c)}. WhatsApp messages from that phone now go to Porter.`,
          'success',
        );
      }
      const code = issued.get(c.id);
      if (code && (c.status !== 'pending_pairing' || c.pairingExpiresAt !== code.pairingExpiresAt))
        issued.delete(c.id);
    }
    for (const id of issued.keys()) if (!next.some((c) => c.id === id)) issued.delete(id);
    const changed = !loaded || JSON.stringify(next) !== JSON.stringify(channels);
    channels = next;
    loaded = true;
    loadError = null;
    if (changed) render();
  }

  function refreshExpiry() {
    for (const line of expiryLines) {
      const words = expiryWords(line.dataset.expires ?? '');
      if (words === null) {
        render(); // the code has expired: offer a new one
        return;
      }
      line.textContent = words;
    }
  }

  // --- rendering -----------------------------------------------------------------------------------------

  function render() {
    const hadFocus = body.contains(document.activeElement);
    expiryLines = [];
    if (loadError !== null) {
      const retry = el('button', { type: 'button', class: 'button button-secondary', text: 'Try again' });
      retry.addEventListener('click', () => void load());
      body.replaceChildren(
        el('p', { class: 'settings-error', text: `Could not load the WhatsApp connection. ${loadError}` }),
        retry,
      );
    } else if (channels.length === 0) {
      body.replaceChildren(renderConnectForm());
    } else {
      body.replaceChildren(...channels.map(renderChannel));
    }
    schedule();
    if (hadFocus && !body.contains(document.activeElement)) {
      /** @type {HTMLElement | null} */ (body.querySelector('[data-focus-first], input, button, a'))?.focus();
    }
  }

  /**
   * @param {FieldName} name
   * @param {string} label
   * @param {string} hint
   * @param {Record<string, string>} attrs
   */
  function field(name, label, hint, attrs) {
    const id = `${base}-${name}`;
    const input = el('input', {
      id,
      name,
      class: 'field-input',
      autocomplete: 'off',
      autocapitalize: 'none',
      spellcheck: 'false',
      required: '',
      'aria-describedby': `${id}-hint`,
      ...attrs,
    });
    input.addEventListener('input', () => input.removeAttribute('aria-invalid'));
    const wrap = el('div', { class: 'field' }, [
      el('label', { for: id, text: label }),
      input,
      el('p', { id: `${id}-hint`, class: 'field-hint', text: hint }),
    ]);
    return { input, wrap };
  }

  function renderConnectForm() {
    const phone = field(
      'phoneNumberId',
      'Phone number ID',
      'Digits only, from WhatsApp › API Setup in your Meta app (not the phone number itself).',
      { type: 'text', inputmode: 'numeric', maxlength: '30' },
    );
    const token = field(
      'accessToken',
      'Access token',
      'A permanent token of a system user (Meta Business Settings › System users), with the whatsapp_business_messaging permission. It is kept encrypted.',
      { type: 'password', maxlength: '1000' },
    );
    const secret = field(
      'appSecret',
      'App secret',
      'From App settings › Basic in your Meta app: Porter checks with it that messages really come from Meta. Kept encrypted.',
      { type: 'password', maxlength: '200' },
    );
    const verify = field(
      'verifyToken',
      'Verify token',
      'Words of your own (8 characters or more) that you will also type into Meta’s webhook settings.',
      { type: 'text', maxlength: '200' },
    );
    const make = el('button', { type: 'button', class: 'button button-secondary', text: 'Make one for me' });
    make.addEventListener('click', () => {
      verify.input.value = randomVerifyToken();
      verify.input.removeAttribute('aria-invalid');
      verify.input.focus();
    });
    // the button sits beside the field it fills, not with the form's own buttons
    const row = el('div', { class: 'field-row' });
    verify.input.replaceWith(row);
    row.append(verify.input, make);
    const submit = el('button', { type: 'submit', class: 'button button-primary', text: 'Connect WhatsApp' });

    const steps = el('ol', { class: 'steps', 'aria-label': 'How to connect WhatsApp' }, [
      el('li', {
        text: 'In your Meta app with the WhatsApp product, copy the phone number ID, a permanent access token and the app secret.',
      }),
      el('li', { text: 'Paste them below, choose a verify token, and press Connect WhatsApp.' }),
      el('li', {
        text: 'Porter then shows the callback URL for Meta’s webhook settings and a pairing code to send from your phone.',
      }),
    ]);
    const form = el(
      'form',
      { class: 'channel-form', method: 'post', action: '#', novalidate: '', autocomplete: 'off' },
      [
        steps,
        phone.wrap,
        token.wrap,
        secret.wrap,
        verify.wrap,
        el('div', { class: 'form-actions' }, [submit]),
      ],
    );
    /** @type {Record<FieldName, HTMLInputElement>} */
    const inputs = {
      phoneNumberId: phone.input,
      accessToken: token.input,
      appSecret: secret.input,
      verifyToken: verify.input,
    };

    /** @param {FieldName} name @param {string} message */
    const refuse = (name, message) => {
      inputs[name].setAttribute('aria-invalid', 'true');
      showStatus(message, 'error');
      inputs[name].focus();
    };

    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      if (busy) return;
      const credentials = {
        phoneNumberId: phone.input.value.replace(/\s+/g, ''),
        accessToken: token.input.value.trim(),
        appSecret: secret.input.value.trim(),
        verifyToken: verify.input.value.trim(),
      };
      for (const input of Object.values(inputs)) input.removeAttribute('aria-invalid');
      if (!PHONE_ID_PATTERN.test(credentials.phoneNumberId))
        return refuse(
          'phoneNumberId',
          'The phone number ID is digits only (5 to 30 of them), as WhatsApp › API Setup shows it.',
        );
      if (credentials.accessToken.length < MIN.accessToken)
        return refuse('accessToken', 'Paste the access token from your Meta app.');
      if (credentials.appSecret.length < MIN.appSecret)
        return refuse('appSecret', 'Paste the app secret from App settings › Basic.');
      if (credentials.verifyToken.length < MIN.verifyToken)
        return refuse(
          'verifyToken',
          'Choose a verify token of 8 characters or more, or press Make one for me.',
        );
      // the secrets never stay in the page once submitted
      token.input.value = '';
      secret.input.value = '';
      setBusy(true);
      showStatus('Checking the details with WhatsApp…', 'pending');
      try {
        const created = await connectWhatsApp(workspaceId, worker.id, credentials);
        issued.set(created.id, {
          pairingCode: created.pairingCode,
          pairingExpiresAt: created.pairingExpiresAt,
          pairingLink: null,
        });
        verifyTokens.set(created.id, credentials.verifyToken);
        const { pairingCode: _code, pairingLink: _link, ...channel } = created;
        channels = [...channels.filter((c) => c.id !== created.id), channel];
        showStatus(
          'WhatsApp accepted the number. Two steps left: the webhook in Meta, then the code from your phone.',
          'success',
        );
        setBusy(false);
        render();
        /** @type {HTMLElement | null} */ (body.querySelector('.webhook-steps'))?.focus();
      } catch (err) {
        const { message, field: which } = describeConnectError(err);
        setBusy(false);
        if (which) refuse(which, message);
        else {
          showStatus(message, 'error');
          token.input.focus();
        }
      }
    });
    return form;
  }

  /** @param {Channel} c */
  function renderChannel(c) {
    const facts = el('dl', { class: 'worker-facts channel-facts' });
    /** @param {string} term @param {string} value @param {string} name */
    const fact = (term, value, name) =>
      facts.append(el('dt', { text: term }), el('dd', { text: value, 'data-fact': name }));
    const statusWords =
      c.status === 'connected'
        ? `Connected to ${chatName(c)}`
        : c.status === 'pending_pairing'
          ? 'Waiting for your phone to send the code'
          : 'Not working';
    fact('Status', statusWords, 'channel-status');
    if (c.status === 'connected' && c.connectedAt) fact('Since', formatDate(c.connectedAt), 'connected-at');
    if (c.lastError) fact('Last problem', c.lastError, 'last-error');

    const block = el('div', { class: 'channel', 'data-channel-id': c.id, 'data-status': c.status }, [facts]);
    if (c.status === 'connected') {
      block.append(
        el('p', { class: 'channel-note' }, [
          'WhatsApp messages from that phone are answered by Porter. In the chat, ',
          el('kbd', { text: '/help' }),
          ' lists what it can do, ',
          el('kbd', { text: '/clear' }),
          ' starts afresh and ',
          el('kbd', { text: '/stop' }),
          ' ends a reply.',
        ]),
      );
    } else if (c.status === 'error') {
      block.append(
        el('p', {
          class: 'channel-note',
          text: 'WhatsApp messages are not reaching Porter. Check the webhook below; if it answers, disconnect and connect the number again.',
        }),
      );
    }
    // The webhook stays on show once connected: reconnecting in Meta or a changed address needs it again.
    const webhook = renderWebhook(c);
    if (c.status === 'connected') {
      block.append(
        el('details', { class: 'advanced webhook-details' }, [
          el('summary', { class: 'advanced-summary', text: 'Webhook in Meta' }),
          webhook,
        ]),
      );
    } else block.append(webhook);
    if (c.status === 'pending_pairing') block.append(renderPairing(c));
    block.append(renderActions(c));
    return block;
  }

  /**
   * Where Meta must send messages, and a check of it as Meta makes it.
   * @param {Channel} c
   */
  function renderWebhook(c) {
    const url = `${location.origin}${whatsappWebhookPath(c.id)}`;
    const tokenId = `${base}-${c.id}-check-token`;
    const token = el('input', {
      id: tokenId,
      type: 'text',
      class: 'field-input',
      autocomplete: 'off',
      autocapitalize: 'none',
      spellcheck: 'false',
      maxlength: '200',
    });
    token.value = verifyTokens.get(c.id) ?? '';
    const checkButton = el('button', {
      type: 'button',
      class: 'button button-secondary',
      text: 'Check the webhook',
    });
    const result = el('p', { class: 'form-status webhook-result', role: 'status', 'aria-live': 'polite' });
    checkButton.addEventListener('click', () => void checkWebhook(c, token, result));
    return el('div', { class: 'webhook-steps', tabindex: '-1' }, [
      el('p', { class: 'webhook-lead' }, [
        'In your Meta app, open ',
        el('strong', { text: 'WhatsApp › Configuration' }),
        ', edit the webhook, and enter:',
      ]),
      el('dl', { class: 'worker-facts webhook-facts' }, [
        el('dt', { text: 'Callback URL' }),
        el('dd', { class: 'webhook-url', 'data-fact': 'callback-url', text: url }),
        el('dt', { text: 'Verify token' }),
        el('dd', { text: 'the one you chose when connecting' }),
      ]),
      el('p', {
        class: 'field-hint',
        text: 'Then subscribe to “messages”. Meta must reach this address over HTTPS from the internet: if Porter has another public address, use that one with the same path.',
      }),
      el('div', { class: 'field webhook-check' }, [
        el('label', { for: tokenId, text: 'Verify token to check' }),
        token,
      ]),
      el('div', { class: 'form-actions' }, [checkButton]),
      result,
    ]);
  }

  /**
   * @param {Channel} c
   * @param {HTMLInputElement} token
   * @param {HTMLParagraphElement} result
   */
  async function checkWebhook(c, token, result) {
    const say = (/** @type {string} */ text, /** @type {string} */ kind) => {
      result.textContent = text;
      result.dataset.kind = kind;
    };
    const value = token.value.trim();
    token.removeAttribute('aria-invalid');
    if (!value) {
      token.setAttribute('aria-invalid', 'true');
      say('Type the verify token you chose when connecting, then check again.', 'error');
      token.focus();
      return;
    }
    say('Checking the webhook as Meta will…', 'pending');
    const { outcome, status: code } = await checkWhatsAppWebhook(c.id, value);
    switch (outcome) {
      case 'verified':
        verifyTokens.set(c.id, value);
        say('The webhook answers this verify token as Meta expects. Meta will accept it.', 'success');
        break;
      case 'token-refused':
        token.setAttribute('aria-invalid', 'true');
        say(
          'The webhook refused this verify token: it is not the one given when connecting. Enter that one, or disconnect and connect again with a new one.',
          'error',
        );
        break;
      case 'not-found':
        say('This WhatsApp connection no longer exists.', 'error');
        void load();
        break;
      case 'unreachable':
        say('Porter’s webhook could not be reached from this browser. Try again in a moment.', 'error');
        break;
      default:
        say(`The webhook answered in a way Meta would not accept (HTTP ${code}).`, 'error');
    }
  }

  /** @param {Channel} c */
  function renderPairing(c) {
    const code = issued.get(c.id);
    const words = code ? expiryWords(code.pairingExpiresAt) : null;
    if (!code || words === null) {
      if (code) issued.delete(c.id);
      return el('div', { class: 'pairing pairing-none', tabindex: '-1' }, [
        el('p', {
          text: code
            ? 'The pairing code has expired. Get a new code to pair your phone.'
            : 'A pairing code is shown only once, when it is made. Get a new code to pair your phone.',
        }),
      ]);
    }
    const expiry = el('p', { class: 'pairing-expiry', 'data-expires': code.pairingExpiresAt, text: words });
    expiryLines.push(expiry);
    return el('div', { class: 'pairing', role: 'group', tabindex: '-1', 'aria-label': 'Pairing code' }, [
      el('p', { class: 'pairing-label', text: 'Your pairing code' }),
      el('p', { class: 'pairing-code', 'data-pairing-code': code.pairingCode, text: code.pairingCode }),
      el('p', { class: 'pairing-instruction' }, [
        'Once the webhook is saved in Meta, send ',
        el('kbd', { class: 'pairing-message', text: code.pairingCode }),
        ' in WhatsApp to your business number, from the phone that should talk to Porter.',
      ]),
      expiry,
    ]);
  }

  /** @param {Channel} c */
  function renderActions(c) {
    const actions = el('div', { class: 'form-actions channel-actions' });
    const disconnect = el('button', { type: 'button', class: 'button button-secondary', text: 'Disconnect' });
    disconnect.addEventListener('click', () => {
      if (!busy) confirmDisconnect(c, actions);
    });
    if (c.status === 'pending_pairing') {
      const fresh = el('button', {
        type: 'button',
        class: issued.has(c.id) ? 'button button-secondary' : 'button button-primary',
        text: 'New code',
        'data-focus-first': '',
      });
      fresh.addEventListener('click', () => void issueCode(c));
      actions.append(fresh);
    }
    actions.append(disconnect);
    return actions;
  }

  /**
   * Asks in place before disconnecting: the question and two buttons take the actions' place.
   * @param {Channel} c
   * @param {HTMLElement} actions
   */
  function confirmDisconnect(c, actions) {
    const previous = [...actions.childNodes];
    const yes = el('button', { type: 'button', class: 'button button-danger', text: 'Yes, disconnect' });
    const no = el('button', { type: 'button', class: 'button button-secondary', text: 'Cancel' });
    const question = el('p', {
      class: 'confirm-question',
      text: `Disconnect WhatsApp? ${c.status === 'connected' ? `Messages from ${chatName(c)}` : 'WhatsApp messages'} will no longer reach Porter. You can connect the number again later, with a new callback URL.`,
    });
    const cancel = () => {
      actions.onkeydown = null;
      actions.replaceChildren(...previous);
      actions.classList.remove('confirming');
      /** @type {HTMLElement | undefined} */ (
        previous.find((n) => n instanceof HTMLButtonElement && n.textContent === 'Disconnect')
      )?.focus();
    };
    no.addEventListener('click', cancel);
    actions.onkeydown = (e) => {
      if (e.key !== 'Escape') return;
      e.preventDefault();
      cancel();
    };
    yes.addEventListener('click', () => void disconnect(c));
    actions.classList.add('confirming');
    showStatus('', 'info');
    actions.replaceChildren(question, yes, no);
    no.focus(); // the safe choice first
  }

  /** @param {Channel} c */
  async function disconnect(c) {
    if (busy) return;
    setBusy(true);
    showStatus('Disconnecting WhatsApp…', 'pending');
    try {
      await deleteChannel(workspaceId, worker.id, c.id);
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 'channel-not-found')) {
        showStatus(`Could not disconnect. ${errorText(err)}`, 'error');
        setBusy(false);
        render();
        return;
      }
      // already gone: the outcome the user asked for
    }
    issued.delete(c.id);
    verifyTokens.delete(c.id);
    channels = channels.filter((x) => x.id !== c.id);
    setBusy(false);
    render();
    showStatus(
      'Disconnected WhatsApp. Messages to your business number no longer reach Porter; you can remove the webhook in Meta.',
      'success',
    );
    /** @type {HTMLElement | null} */ (body.querySelector('input, button'))?.focus();
  }

  /** @param {Channel} c */
  async function issueCode(c) {
    if (busy) return;
    setBusy(true);
    showStatus('Making a new code…', 'pending');
    try {
      const code = await newPairingCode(workspaceId, worker.id, c.id);
      issued.set(c.id, {
        pairingCode: code.pairingCode,
        pairingExpiresAt: code.pairingExpiresAt,
        pairingLink: null,
      });
      channels = channels.map((x) => (x.id === c.id ? { ...x, pairingExpiresAt: code.pairingExpiresAt } : x));
      showStatus('A new code is ready; the old one no longer works.', 'success');
      setBusy(false);
      render();
      /** @type {HTMLElement | null} */ (body.querySelector('.pairing'))?.focus();
    } catch (err) {
      showStatus(`Could not make a new code. ${errorText(err)}`, 'error');
      setBusy(false);
      if (err instanceof ApiError && err.code === 'channel-not-found') void load();
    }
  }

  async function load() {
    section.setAttribute('aria-busy', 'true');
    try {
      apply(await listChannels(workspaceId, worker.id));
    } catch (err) {
      loadError = errorText(err);
      render();
    } finally {
      section.setAttribute('aria-busy', 'false');
    }
  }

  void load();
  return section;
}
