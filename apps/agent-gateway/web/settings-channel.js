// What the Settings tab's Telegram and WhatsApp sections share (docs/channels.md): the section around the channel,
// its status line, loading the worker's channels, the pairing code and its expiry, a new code, and disconnecting
// with a question asked in place. Each channel's file gives only what differs: its connect form, its words, and what
// a channel shows beside its facts (settings-telegram.js, settings-whatsapp.js).
//
// A pairing code is shown only by the answer that issued it (the list never carries it), so the codes issued in this
// page are kept in memory (never in storage) until they are used or expire.
//
// While a channel waits for its chat, the list is fetched again every few seconds, and only while the page is
// visible and the Settings tab open: the status turns to connected without a reload.
import { ApiError } from './chat-api.js';
import { deleteChannel, listChannels, newPairingCode } from './channels-api.js';
import { el, formatDate, sectionShown, whenShownAgain } from './dom.js';

/** @typedef {import('./channels-api.js').Channel} Channel */
/** @typedef {import('./channels-api.js').Pairing} Pairing */

/**
 * One line of a channel's facts: its term, its value, and its `data-fact` name.
 * @typedef {{ term: string, value: string, name: string }} Fact
 */

/**
 * What a channel's own code may do in its section.
 * @typedef {object} ChannelSectionContext
 * @property {string} base the start of the section's element ids, `worker-<id>-<type>`
 * @property {() => boolean} busy true while a request of the section runs
 * @property {(text: string, kind: string) => void} showStatus
 * @property {(o: ConnectSteps) => Promise<void>} connect sends the connect request and shows its outcome
 * @property {(c: Channel) => HTMLElement} renderPairing the code to send, or the offer of a new one
 * @property {() => Promise<void>} load fetches the list again
 */

/**
 * @typedef {object} ConnectSteps
 * @property {(workspaceId: string, workerId: string) => Promise<Channel & Pairing>} request the connect call
 * @property {string} pending what the status says while the request runs
 * @property {(created: Channel & Pairing) => string} done what it says once the channel is made
 * @property {string} focus the selector of what takes focus then
 * @property {(err: unknown) => void} failed shows why it was not made (busy is already over)
 */

/**
 * @typedef {object} ChannelSpec
 * @property {Channel['type']} type
 * @property {string} title the channel's name, the section's heading
 * @property {string} intro
 * @property {string} who what pairs, as in "Waiting for your chat to send the code"
 * @property {(c: Channel) => string} chatName the chat a connected channel talks to
 * @property {(c: Channel) => string} connectedWords announced when a waiting channel turns connected
 * @property {(c: Channel) => Fact[]} [leadFacts] facts above the status
 * @property {(c: Channel) => Fact[]} [moreFacts] facts below it, above the last problem
 * @property {(ctx: ChannelSectionContext) => HTMLFormElement} connectForm shown while there is no channel
 * @property {(c: Channel, ctx: ChannelSectionContext) => Node[]} channelBody between a channel's facts and actions
 * @property {(c: Channel, code: Pairing) => (Node | string)[]} pairingInstruction how to send the code
 * @property {(c: Channel, code: Pairing) => Node[]} [pairingExtras] below the code's expiry
 * @property {(c: Channel) => string} disconnectQuestion
 * @property {(c: Channel) => { pending: string, done: string }} disconnectWords
 * @property {(channelId: string) => void} [forget] drops what the page kept of a disconnected channel
 */

const POLL_MS = 3000;

/** Codes issued in this page, by channel type and id: they outlive a re-render of the tab, not a reload. */
const issuedByType = /** @type {Map<string, Map<string, Pairing>>} */ (new Map());

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

/** @param {unknown} err */
const errorText = (err) => (err instanceof ApiError ? err.message : 'Something went wrong. Try again.');

/**
 * A connected channel's note: `lead`, then the chat commands it understands.
 * @param {string} lead
 */
export function commandsNote(lead) {
  return el('p', { class: 'channel-note' }, [
    lead,
    el('kbd', { text: '/help' }),
    ' lists what it can do, ',
    el('kbd', { text: '/clear' }),
    ' starts afresh and ',
    el('kbd', { text: '/stop' }),
    ' ends a reply.',
  ]);
}

/**
 * A channel's connect form: how to connect in numbered steps, in the order the user meets them, then the fields and
 * the Connect button.
 * @param {string} title the channel's name
 * @param {HTMLElement[]} steps the steps' list items
 * @param {HTMLElement[]} fields
 */
export function channelForm(title, steps, fields) {
  return el(
    'form',
    { class: 'channel-form', method: 'post', action: '#', novalidate: '', autocomplete: 'off' },
    [
      el('ol', { class: 'steps', 'aria-label': `How to connect ${title}` }, steps),
      ...fields,
      el('div', { class: 'form-actions' }, [
        el('button', { type: 'submit', class: 'button button-primary', text: `Connect ${title}` }),
      ]),
    ],
  );
}

/**
 * One channel's section of a worker's card. It loads the worker's channels itself and stops checking on them once
 * it is taken out of the page.
 * @param {ChannelSpec} spec
 * @param {{ workspaceId: string, worker: { id: string, name: string } }} o
 * @returns {HTMLElement}
 */
export function createChannelSection(spec, { workspaceId, worker }) {
  const base = `worker-${worker.id}-${spec.type}`;
  const headingId = `${base}-heading`;
  const codes = issuedByType.get(spec.type) ?? new Map();
  issuedByType.set(spec.type, codes);

  const heading = el('h4', { id: headingId, class: 'channel-heading', text: spec.title });
  const intro = el('p', { class: 'channel-intro', text: spec.intro });
  const body = el('div', { class: 'channel-body' });
  const status = el('p', {
    id: `${base}-status`,
    class: 'form-status',
    role: 'status',
    'aria-live': 'polite',
  });
  const section = el(
    'section',
    {
      class: 'channel-section',
      'aria-labelledby': headingId,
      'aria-busy': 'true',
      'data-channel': spec.type,
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

  /** @type {ChannelSectionContext} */
  const ctx = { base, busy: () => busy, showStatus, connect, renderPairing, load };

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
    const next = (Array.isArray(list?.channels) ? list.channels : []).filter((c) => c.type === spec.type);
    for (const c of next) {
      const before = channels.find((p) => p.id === c.id);
      if (before?.status === 'pending_pairing' && c.status === 'connected') {
        showStatus(spec.connectedWords(c), 'success');
      }
      const code = codes.get(c.id);
      if (code && (c.status !== 'pending_pairing' || c.pairingExpiresAt !== code.pairingExpiresAt)) {
        codes.delete(c.id); // used, or replaced by a code issued elsewhere
      }
    }
    for (const id of codes.keys()) if (!next.some((c) => c.id === id)) codes.delete(id);
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
        el('p', {
          class: 'settings-error',
          text: `Could not load the ${spec.title} connection. ${loadError}`,
        }),
        retry,
      );
    } else if (channels.length === 0) {
      body.replaceChildren(spec.connectForm(ctx));
    } else {
      body.replaceChildren(...channels.map(renderChannel));
    }
    schedule();
    // What had focus may be gone: keep the keyboard in this section.
    if (hadFocus && !body.contains(document.activeElement)) {
      /** @type {HTMLElement | null} */ (body.querySelector('[data-focus-first], input, button, a'))?.focus();
    }
  }

  /** @param {Channel} c */
  function renderChannel(c) {
    const statusWords =
      c.status === 'connected'
        ? `Connected to ${spec.chatName(c)}`
        : c.status === 'pending_pairing'
          ? `Waiting for ${spec.who} to send the code`
          : 'Not working';
    const facts = [
      ...(spec.leadFacts?.(c) ?? []),
      { term: 'Status', value: statusWords, name: 'channel-status' },
      ...(c.status === 'connected' && c.connectedAt
        ? [{ term: 'Since', value: formatDate(c.connectedAt), name: 'connected-at' }]
        : []),
      ...(spec.moreFacts?.(c) ?? []),
      // A connected channel keeps its status when a reply fails; the problem is shown until replies go through again.
      ...(c.lastError ? [{ term: 'Last problem', value: c.lastError, name: 'last-error' }] : []),
    ];
    const list = el(
      'dl',
      { class: 'worker-facts channel-facts' },
      facts.flatMap((f) => [el('dt', { text: f.term }), el('dd', { text: f.value, 'data-fact': f.name })]),
    );
    return el('div', { class: 'channel', 'data-channel-id': c.id, 'data-status': c.status }, [
      list,
      ...spec.channelBody(c, ctx),
      renderActions(c),
    ]);
  }

  /** @param {Channel} c */
  function renderPairing(c) {
    const code = codes.get(c.id);
    const words = code ? expiryWords(code.pairingExpiresAt) : null;
    if (!code || words === null) {
      if (code) codes.delete(c.id);
      return el('div', { class: 'pairing pairing-none', tabindex: '-1' }, [
        el('p', {
          text: code
            ? `The pairing code has expired. Get a new code to pair ${spec.who}.`
            : `A pairing code is shown only once, when it is made. Get a new code to pair ${spec.who}.`,
        }),
      ]);
    }
    const expiry = el('p', { class: 'pairing-expiry', 'data-expires': code.pairingExpiresAt, text: words });
    expiryLines.push(expiry);
    return el('div', { class: 'pairing', role: 'group', tabindex: '-1', 'aria-label': 'Pairing code' }, [
      el('p', { class: 'pairing-label', text: 'Your pairing code' }),
      el('p', { class: 'pairing-code', 'data-pairing-code': code.pairingCode, text: code.pairingCode }),
      el('p', { class: 'pairing-instruction' }, spec.pairingInstruction(c, code)),
      expiry,
      ...(spec.pairingExtras?.(c, code) ?? []),
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
        class: codes.has(c.id) ? 'button button-secondary' : 'button button-primary',
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
    const question = el('p', { class: 'confirm-question', text: spec.disconnectQuestion(c) });
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

  // --- requests ------------------------------------------------------------------------------------------

  /** @param {ConnectSteps} steps */
  async function connect(steps) {
    setBusy(true);
    showStatus(steps.pending, 'pending');
    try {
      const created = await steps.request(workspaceId, worker.id);
      codes.set(created.id, {
        pairingCode: created.pairingCode,
        pairingExpiresAt: created.pairingExpiresAt,
        pairingLink: created.pairingLink,
      });
      const { pairingCode: _code, pairingLink: _link, ...channel } = created;
      channels = [...channels.filter((c) => c.id !== created.id), channel];
      showStatus(steps.done(created), 'success');
      setBusy(false);
      render();
      /** @type {HTMLElement | null} */ (body.querySelector(steps.focus))?.focus();
    } catch (err) {
      setBusy(false);
      steps.failed(err);
    }
  }

  /** @param {Channel} c */
  async function disconnect(c) {
    if (busy) return;
    const words = spec.disconnectWords(c);
    setBusy(true);
    showStatus(words.pending, 'pending');
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
    codes.delete(c.id);
    spec.forget?.(c.id);
    channels = channels.filter((x) => x.id !== c.id);
    setBusy(false);
    render();
    showStatus(words.done, 'success');
    /** @type {HTMLElement | null} */ (body.querySelector('input, button'))?.focus();
  }

  /** @param {Channel} c */
  async function issueCode(c) {
    if (busy) return;
    setBusy(true);
    showStatus('Making a new code…', 'pending');
    try {
      const code = await newPairingCode(workspaceId, worker.id, c.id);
      codes.set(c.id, {
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
