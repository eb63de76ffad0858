// The Settings tab's Telegram section for the worker that answers this chat (docs/channels.md, issue 13): connect a bot
// with its BotFather token, pair a chat with the code, watch the status turn to connected, disconnect.
//
// The token is read from its password field only to go into the connect request's body, and the field is emptied
// after every submit. A pairing code is shown only by the answer that issued it (the list never carries it), so the
// codes issued in this page are kept in memory (never in storage) until they are used or expire.
//
// While a channel waits for its chat, the list is fetched again every few seconds, and only while the page is
// visible and the Settings tab open: the status turns to connected without a reload.
import { ApiError } from './chat-api.js';
import { connectTelegram, deleteChannel, listChannels, newPairingCode } from './channels-api.js';
import { el, formatDate, sectionShown, whenShownAgain } from './dom.js';

/** @typedef {import('./channels-api.js').Channel} Channel */
/** @typedef {import('./channels-api.js').Pairing} Pairing */

const POLL_MS = 3000;
// As packages/contracts/src/channels.ts: `<bot id>:<token>`; the Bot API has the last word.
const TOKEN_PATTERN = /^[0-9]{1,20}:[A-Za-z0-9_-]{20,100}$/;

/** Codes issued in this page, by channel id: they outlive a re-render of the tab, not a reload. */
const issued = /** @type {Map<string, Pairing>} */ (new Map());

const MODE_NAMES = { polling: 'Porter checks for new messages', webhook: 'Telegram sends them to Porter' };

/** @param {Channel} c */
const botName = (c) => (c.botUsername ? `@${c.botUsername}` : 'the bot');
/** @param {Channel} c */
const chatName = (c) => c.chat?.title || 'the chat';

/**
 * When the code stops working, in words; null once it has.
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
 * The connect failure in words, and whether it is about the token.
 * @param {unknown} err
 * @returns {{ message: string, aboutToken: boolean }}
 */
function describeConnectError(err) {
  if (!(err instanceof ApiError)) {
    return { message: 'Something went wrong while connecting. Try again.', aboutToken: false };
  }
  switch (err.code) {
    case 'channel-token-rejected':
      return {
        message:
          'Telegram did not accept this token. Copy it again from BotFather (the whole line, like 123456789:AAF…) and paste it here.',
        aboutToken: true,
      };
    case 'validation-failed':
      return {
        message:
          'That does not look like a bot token. A token looks like 123456789:AAF… — copy it again from BotFather.',
        aboutToken: true,
      };
    case 'channel-unreachable':
      return {
        message:
          'Telegram could not be reached, so nothing was connected. Check the internet connection of the computer Porter runs on, then paste the token and try again.',
        aboutToken: false,
      };
    case 'channel-already-connected':
      return {
        message:
          'This bot is already connected to another assistant. Disconnect it there first, or create a new bot with BotFather for this one.',
        aboutToken: true,
      };
    case 'public-url-required':
      return {
        message:
          'Delivery by webhook needs a public web address for Porter that Telegram can reach, and none is set (PUBLIC_BASE_URL). Choose “Porter checks for new messages” instead, or ask whoever runs Porter to set one; then paste the token again.',
        aboutToken: false,
      };
    default:
      return { message: err.message, aboutToken: false };
  }
}

/** @param {unknown} err */
const errorText = (err) => (err instanceof ApiError ? err.message : 'Something went wrong. Try again.');

/**
 * The Telegram section of one worker's card. It loads the worker's channels itself and stops checking on them
 * once it is taken out of the page.
 * @param {{ workspaceId: string, worker: { id: string, name: string } }} o
 * @returns {HTMLElement}
 */
export function createTelegramSection({ workspaceId, worker }) {
  const base = `worker-${worker.id}-telegram`;
  const headingId = `${base}-heading`;
  const statusId = `${base}-status`;

  const heading = el('h4', { id: headingId, class: 'channel-heading', text: 'Telegram' });
  const intro = el('p', {
    class: 'channel-intro',
    text: 'Ask Porter from Telegram on your phone and get its answers there.',
  });
  const body = el('div', { class: 'channel-body' });
  const status = el('p', { id: statusId, class: 'form-status', role: 'status', 'aria-live': 'polite' });
  const section = el(
    'section',
    {
      class: 'channel-section',
      'aria-labelledby': headingId,
      'aria-busy': 'true',
      'data-channel': 'telegram',
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
  /** @type {HTMLElement[]} expiry lines of the codes on screen, refreshed at each check */
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

  const visible = () => sectionShown(section);
  const waiting = () => channels.some((c) => c.status === 'pending_pairing');

  function schedule() {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    if (section.isConnected && visible() && waiting()) timer = setTimeout(() => void check(), POLL_MS);
  }

  async function check() {
    timer = null;
    if (!visible()) return; // picked up again when the page or the tab is shown
    if (busy) return schedule();
    try {
      apply(await listChannels(workspaceId, worker.id));
    } catch {
      // a failed check is tried again at the next one; the page keeps what it showed
    }
    refreshExpiry();
    schedule();
  }

  whenShownAgain(section, () => {
    if (timer === null && waiting()) void check();
  });

  /**
   * Takes a fresh list in: announces a chat that has just paired, forgets codes that are no longer current, and
   * renders again only if something changed (so that focus stays where it is).
   * @param {{ channels: Channel[] }} list
   */
  function apply(list) {
    const next = (Array.isArray(list?.channels) ? list.channels : []).filter((c) => c.type === 'telegram');
    for (const c of next) {
      const before = channels.find((p) => p.id === c.id);
      if (before?.status === 'pending_pairing' && c.status === 'connected') {
        showStatus(`Connected to ${chatName(c)}. Messages there now go to Porter.`, 'success');
      }
      const code = issued.get(c.id);
      if (code && (c.status !== 'pending_pairing' || c.pairingExpiresAt !== code.pairingExpiresAt)) {
        issued.delete(c.id); // used, or replaced by a code issued elsewhere
      }
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
        el('p', { class: 'settings-error', text: `Could not load the Telegram connection. ${loadError}` }),
        retry,
      );
    } else if (channels.length === 0) {
      body.replaceChildren(renderConnectForm());
    } else {
      body.replaceChildren(...channels.map(renderChannel));
    }
    schedule();
    // What had focus may be gone: keep the keyboard in this section.
    if (hadFocus && !body.contains(document.activeElement)) {
      /** @type {HTMLElement | null} */ (body.querySelector('[data-focus-first], input, button, a'))?.focus();
    }
  }

  function renderConnectForm() {
    const tokenId = `${base}-token`;
    const hintId = `${base}-token-hint`;
    const modeHintIds = { polling: `${base}-mode-polling-hint`, webhook: `${base}-mode-webhook-hint` };
    const token = el('input', {
      id: tokenId,
      name: 'botToken',
      type: 'password',
      class: 'field-input',
      autocomplete: 'off',
      autocapitalize: 'none',
      spellcheck: 'false',
      maxlength: '130',
      required: '',
      'aria-describedby': hintId,
    });
    /** @param {'polling' | 'webhook'} mode @param {string} label @param {string} hint */
    const choice = (mode, label, hint) => {
      const id = `${base}-mode-${mode}`;
      const input = el('input', {
        id,
        type: 'radio',
        name: `${base}-mode`,
        value: mode,
        class: 'choice-input',
        'aria-describedby': modeHintIds[mode],
      });
      if (mode === 'polling') input.checked = true;
      return el('div', { class: 'choice' }, [
        input,
        el('label', { for: id, class: 'choice-label', text: label }),
        el('p', { id: modeHintIds[mode], class: 'field-hint choice-hint', text: hint }),
      ]);
    };
    const submit = el('button', { type: 'submit', class: 'button button-primary', text: 'Connect Telegram' });

    // Pairing in three steps, in the order the user meets them.
    const steps = el('ol', { class: 'steps', 'aria-label': 'How to connect Telegram' }, [
      el('li', {}, [
        'In Telegram, open a chat with ',
        el('strong', { text: '@BotFather' }),
        ', send ',
        el('kbd', { text: '/newbot' }),
        ' and choose a name and a username ending in “bot”. BotFather answers with a token.',
      ]),
      el('li', { text: 'Paste the token below and press Connect Telegram.' }),
      el('li', {
        text: 'Porter then shows a pairing code: send it to your new bot from your own Telegram chat.',
      }),
    ]);
    const form = el(
      'form',
      { class: 'channel-form', method: 'post', action: '#', novalidate: '', autocomplete: 'off' },
      [
        steps,
        el('div', { class: 'field' }, [
          el('label', { for: tokenId, text: 'Bot token' }),
          token,
          el('p', {
            id: hintId,
            class: 'field-hint',
            text: 'The token from BotFather, a line like 123456789:AAF…; copy all of it. It is kept encrypted.',
          }),
        ]),
        el('fieldset', { class: 'choice-group' }, [
          el('legend', { text: 'How messages reach Porter' }),
          choice(
            'polling',
            'Porter checks for new messages (simplest)',
            'Works anywhere, nothing else to set up: Porter keeps asking Telegram for new messages.',
          ),
          choice(
            'webhook',
            'Telegram sends them to Porter (needs a public address)',
            'Telegram sends each message straight to Porter’s public web address. Only when Porter can be reached from the internet.',
          ),
        ]),
        el('div', { class: 'form-actions' }, [submit]),
      ],
    );

    token.addEventListener('input', () => token.removeAttribute('aria-invalid'));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      if (busy) return;
      const botToken = token.value.trim();
      const picked = /** @type {HTMLInputElement | null} */ (
        form.querySelector('input[type="radio"]:checked')
      );
      const mode = picked?.value === 'webhook' ? 'webhook' : 'polling';
      if (!botToken) {
        token.setAttribute('aria-invalid', 'true');
        showStatus('Paste the bot token from BotFather.', 'error');
        token.focus();
        return;
      }
      token.value = ''; // never kept in the page once submitted
      if (!TOKEN_PATTERN.test(botToken)) {
        token.setAttribute('aria-invalid', 'true');
        showStatus(describeConnectError(new ApiError('', { code: 'validation-failed' })).message, 'error');
        token.focus();
        return;
      }
      token.removeAttribute('aria-invalid');
      setBusy(true);
      showStatus('Checking the token with Telegram…', 'pending');
      try {
        const created = await connectTelegram(workspaceId, worker.id, botToken, mode);
        issued.set(created.id, {
          pairingCode: created.pairingCode,
          pairingExpiresAt: created.pairingExpiresAt,
          pairingLink: created.pairingLink,
        });
        channels = [...channels.filter((c) => c.id !== created.id), toChannel(created)];
        showStatus(
          `Telegram accepted ${botName(created)}. One step left: send the code from your chat.`,
          'success',
        );
        setBusy(false);
        render();
        /** @type {HTMLElement | null} */ (body.querySelector('.pairing'))?.focus();
      } catch (err) {
        const { message, aboutToken } = describeConnectError(err);
        if (aboutToken) token.setAttribute('aria-invalid', 'true');
        showStatus(message, 'error');
        setBusy(false);
        token.focus();
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
          ? 'Waiting for your chat to send the code'
          : 'Not working';
    fact('Bot', botName(c), 'bot');
    fact('Status', statusWords, 'channel-status');
    if (c.status === 'connected' && c.connectedAt) fact('Since', formatDate(c.connectedAt), 'connected-at');
    fact('Messages', MODE_NAMES[c.mode] ?? c.mode, 'mode');
    // A connected channel keeps its status when a reply fails; the problem is shown until replies go through again.
    if (c.lastError) fact('Last problem', c.lastError, 'last-error');

    const block = el('div', { class: 'channel', 'data-channel-id': c.id, 'data-status': c.status }, [facts]);
    if (c.status === 'connected') {
      block.append(
        el('p', { class: 'channel-note' }, [
          `Messages in that chat are answered by Porter. In the chat, `,
          el('kbd', { text: '/help' }),
          ' lists what it can do, ',
          el('kbd', { text: '/clear' }),
          ' starts afresh and ',
          el('kbd', { text: '/stop' }),
          ' ends a reply.',
        ]),
      );
    } else if (c.status === 'pending_pairing') {
      block.append(renderPairing(c));
    } else {
      block.append(
        el('p', {
          class: 'channel-note',
          text: 'Telegram messages are not reaching Porter. Disconnect, then connect the bot again.',
        }),
      );
    }
    block.append(renderActions(c));
    return block;
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
            ? 'The pairing code has expired. Get a new code to pair your chat.'
            : 'A pairing code is shown only once, when it is made. Get a new code to pair your chat.',
        }),
      ]);
    }
    const bot = botName(c);
    const message = `/start ${code.pairingCode}`;
    const link =
      code.pairingLink ??
      (c.botUsername ? `https://t.me/${encodeURIComponent(c.botUsername)}?start=${code.pairingCode}` : null);
    const expiry = el('p', { class: 'pairing-expiry', 'data-expires': code.pairingExpiresAt, text: words });
    expiryLines.push(expiry);
    const box = el('div', { class: 'pairing', role: 'group', tabindex: '-1', 'aria-label': 'Pairing code' }, [
      el('p', { class: 'pairing-label', text: 'Your pairing code' }),
      el('p', { class: 'pairing-code', 'data-pairing-code': code.pairingCode, text: code.pairingCode }),
      el('p', { class: 'pairing-instruction' }, [
        'Send ',
        el('kbd', { class: 'pairing-message', text: message }),
        ` to ${bot} in Telegram, from the chat that should talk to Porter.`,
      ]),
      expiry,
    ]);
    if (link) {
      box.append(
        el('a', {
          class: 'button button-primary button-link',
          href: link,
          target: '_blank',
          rel: 'noopener noreferrer',
          text: `Open ${bot} in Telegram`,
        }),
        el('p', {
          class: 'field-hint',
          text: 'The button opens the chat with the code filled in: tap Start. On a computer without Telegram, send the message from your phone.',
        }),
      );
    }
    return box;
  }

  /** @param {Channel} c */
  function renderActions(c) {
    const actions = el('div', { class: 'form-actions channel-actions' });
    const disconnect = el('button', { type: 'button', class: 'button button-secondary', text: 'Disconnect' });
    disconnect.addEventListener('click', () => {
      if (busy) return;
      confirmDisconnect(c, actions);
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
      text: `Disconnect ${botName(c)}? ${c.status === 'connected' ? `${chatName(c)} will` : 'Telegram will'} no longer reach Porter. You can connect the bot again later.`,
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
      actions.onkeydown = null;
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
    showStatus(`Disconnecting ${botName(c)}…`, 'pending');
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
    channels = channels.filter((x) => x.id !== c.id);
    setBusy(false);
    render();
    showStatus(`Disconnected ${botName(c)}. Telegram no longer reaches Porter.`, 'success');
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
        pairingLink: code.pairingLink,
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

/**
 * The channel part of a connect answer (its code is kept apart).
 * @param {Channel & Pairing} created
 * @returns {Channel}
 */
function toChannel(created) {
  const { pairingCode: _code, pairingLink: _link, ...channel } = created;
  return channel;
}
