// The Settings tab's Email section for the worker that answers this chat (docs/email.md, EMAIL_INGESTION_ENABLED):
// the mailboxes Porter reads itself, each with when it was last checked, how many messages it keeps and what went
// wrong last, in words; a form to connect one (the gateway refuses a mailbox the platform already reads, and
// tests the login first); Remove, asked in place.
//
// The password is read from its field only to go into the connect request's body, and the field is emptied after
// every submit. While a new mailbox waits for its first check, the list is read again every few seconds (only
// while the page is visible and the tab open), so "last checked" appears without a reload.
import { ApiError } from './chat-api.js';
import { confirmInPlace, el, formatDate, sectionShown, whenShownAgain } from './dom.js';
import { connectMailbox, listMailboxes, removeMailbox } from './mailboxes-api.js';
import { textField } from './settings-fields.js';
import { plural } from './settings-format.js';

/** @typedef {import('./mailboxes-api.js').Mailbox} Mailbox */

const POLL_MS = 4000;

/** @type {Record<string, string>} */
const FIELD_LABELS = {
  '#/address': 'email address',
  '#/host': 'server',
  '#/port': 'port',
  '#/username': 'username',
  '#/password': 'password',
};

/** @param {unknown} err */
const errorText = (err) => (err instanceof ApiError ? err.message : 'Something went wrong. Try again.');

/**
 * The connect failure in words, and which field (if any) it is about.
 * @param {unknown} err
 * @returns {{ message: string, field: string | null }}
 */
function describeConnectError(err) {
  if (!(err instanceof ApiError))
    return { message: 'Something went wrong while connecting. Try again.', field: null };
  switch (err.code) {
    case 'mailbox-owned-by-platform':
    case 'mailbox-already-connected':
      return { message: err.message, field: 'address' };
    case 'mailbox-host-refused':
      return { message: `${err.message} Use your mail provider’s IMAP server name.`, field: 'host' };
    case 'mailbox-login-failed':
      return {
        message: `${err.message} Check the server, the port, the username and the password. With Gmail or Microsoft 365, use an app password.`,
        field: 'password',
      };
    case 'validation-failed': {
      const fields = /** @type {import('./chat-api.js').FieldsApiError} */ (err).fields ?? [];
      const first = fields.find((f) => f.pointer in FIELD_LABELS) ?? fields[0];
      if (first) {
        const label = FIELD_LABELS[first.pointer] ?? first.pointer.replace(/^#\//, '');
        return {
          message: `The ${label} is not valid: ${first.detail}.`,
          field: first.pointer.replace(/^#\//, ''),
        };
      }
      return { message: err.message, field: null };
    }
    default:
      return { message: err.message, field: null };
  }
}

/**
 * Where a mailbox stands, in one sentence.
 * @param {Mailbox} m
 */
function stateWords(m) {
  if (m.status === 'stopped') return m.lastError ?? 'Porter no longer reads this mailbox.';
  if (m.status === 'error')
    return `${m.lastError ?? 'The last check failed.'}${m.lastSyncAt ? ` Last read ${formatDate(m.lastSyncAt)}.` : ''}`;
  if (!m.lastSyncAt) return 'Connected. Porter reads it for the first time in a moment.';
  return `Last checked ${formatDate(m.lastSyncAt)} · ${plural(m.messagesStored, 'message', 'messages')} kept`;
}

/**
 * The Email section of one worker's card. It loads the worker's mailboxes itself.
 * @param {{ workspaceId: string, worker: { id: string, name: string }, bound: () => boolean }} o
 * @returns {HTMLElement}
 */
export function createEmailSection({ workspaceId, worker, bound }) {
  const base = `worker-${worker.id}-email`;
  const headingId = `${base}-heading`;
  const list = el('ul', { class: 'mailbox-list', 'aria-labelledby': headingId });
  const body = el('div', { class: 'channel-body' });
  const status = el('p', { class: 'form-status', role: 'status', 'aria-live': 'polite' });
  const section = el(
    'section',
    { class: 'channel-section', 'aria-labelledby': headingId, 'aria-busy': 'true', 'data-section': 'email' },
    [
      el('h4', { id: headingId, class: 'channel-heading', text: 'Email' }),
      el('p', {
        class: 'channel-intro',
        text: 'Porter reads the mailboxes your property platform reads through the platform. It can also read a mailbox the platform does not read: connect it here. Porter keeps the sender, the subject and the first lines of each message, never the whole email.',
      }),
      list,
      body,
      status,
    ],
  );

  /** @type {Mailbox[]} */
  let mailboxes = [];
  let formOpen = false;
  /** @type {ReturnType<typeof setTimeout> | null} */
  let timer = null;

  /** @param {string} text @param {'success' | 'error' | 'pending' | 'info'} kind */
  function showStatus(text, kind) {
    status.textContent = text;
    status.dataset.kind = kind;
  }

  const visible = () => sectionShown(section);
  const waiting = () => mailboxes.some((m) => m.status === 'active' && !m.lastSyncAt);

  function schedule() {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    if (waiting()) timer = setTimeout(() => void check(), POLL_MS);
  }

  async function check() {
    timer = null;
    if (!section.isConnected) return;
    if (visible()) {
      try {
        apply((await listMailboxes(workspaceId, worker.id)).mailboxes);
      } catch {
        // tried again at the next check; the page keeps what it showed
      }
    }
    schedule();
  }

  /** @param {Mailbox[]} next */
  function apply(next) {
    const changed = JSON.stringify(next) !== JSON.stringify(mailboxes);
    mailboxes = Array.isArray(next) ? next : [];
    if (changed) renderList();
  }

  /** @param {Mailbox} m */
  function renderMailbox(m) {
    const actions = el('div', { class: 'device-actions' });
    const remove = el('button', { type: 'button', class: 'button button-secondary', text: 'Remove' });
    remove.setAttribute('aria-label', `Remove ${m.address}`);
    remove.addEventListener('click', () => confirmRemove(m, actions, remove));
    actions.append(remove);
    return el('li', { class: 'mailbox', 'data-mailbox-id': m.id, 'data-status': m.status }, [
      el('p', { class: 'mailbox-address', text: m.address }),
      el('p', { class: 'mailbox-state', 'data-fact': 'mailbox-state', text: stateWords(m) }),
      el('p', {
        class: 'device-facts',
        text: `${m.host}:${m.port}${m.secure ? ' (secure)' : ' (not encrypted)'} · ${m.username}`,
      }),
      actions,
    ]);
  }

  /** @param {Mailbox} m @param {HTMLElement} actions @param {HTMLButtonElement} remove */
  function confirmRemove(m, actions, remove) {
    const question = `Remove ${m.address}? Porter stops reading it and forgets the messages it kept from it.`;
    confirmInPlace(actions, remove, question, async () => {
      try {
        await removeMailbox(workspaceId, worker.id, m.id);
        showStatus(`${m.address} was removed. Porter no longer reads it.`, 'success');
        apply(mailboxes.filter((x) => x.id !== m.id));
        if (mailboxes.length === 0) openForm();
        return true;
      } catch (err) {
        showStatus(`Could not remove ${m.address}. ${errorText(err)}`, 'error');
        return false;
      }
    });
  }

  function renderList() {
    list.replaceChildren(...mailboxes.map(renderMailbox));
    list.hidden = mailboxes.length === 0;
    schedule();
  }

  function openForm() {
    formOpen = true;
    renderBody();
  }

  function renderBody() {
    if (!bound()) {
      body.replaceChildren(
        el('p', {
          class: 'channel-note',
          text: 'Connect your property platform first: Porter asks it which mailboxes it already reads, so that no mailbox is read twice.',
        }),
      );
      return;
    }
    if (!formOpen && mailboxes.length > 0) {
      const add = el('button', {
        type: 'button',
        class: 'button button-secondary',
        text: 'Connect another mailbox',
      });
      add.addEventListener('click', () => {
        openForm();
        /** @type {HTMLElement | null} */ (body.querySelector('input'))?.focus();
      });
      body.replaceChildren(add);
      return;
    }
    body.replaceChildren(renderForm());
  }

  /**
   * @param {string} name @param {string} label @param {string} hint @param {Record<string, string>} attrs
   */
  const field = (name, label, hint, attrs) => textField(`${base}-${name}`, name, label, hint, attrs);

  function renderForm() {
    const address = field('address', 'Email address', '', { type: 'email', maxlength: '254', required: '' });
    const host = field(
      'host',
      'Incoming mail (IMAP) server',
      'From your email provider, like imap.example.co.uk.',
      {
        type: 'text',
        maxlength: '253',
        required: '',
        inputmode: 'url',
      },
    );
    const port = field('port', 'Port', '993 for a secure connection.', {
      type: 'text',
      inputmode: 'numeric',
      maxlength: '5',
      class: 'field-input field-mono',
    });
    port.input.value = '993';
    const username = field(
      'username',
      'Username',
      'Usually the email address. Left empty, the address is used.',
      {
        type: 'text',
        maxlength: '254',
      },
    );
    const password = field(
      'password',
      'Password',
      'Porter keeps it encrypted and never shows it again. With Gmail or Microsoft 365, use an app password.',
      { type: 'password', maxlength: '1024', required: '' },
    );
    const secureId = `${base}-secure`;
    const secure = el('input', { id: secureId, type: 'checkbox', class: 'choice-input' });
    secure.checked = true;
    secure.addEventListener('change', () => {
      if (port.input.value === '993' && !secure.checked) port.input.value = '143';
      else if (port.input.value === '143' && secure.checked) port.input.value = '993';
    });
    const submit = el('button', { type: 'submit', class: 'button button-primary', text: 'Connect mailbox' });
    const actions = el('div', { class: 'form-actions' }, [submit]);
    if (mailboxes.length > 0) {
      const cancel = el('button', { type: 'button', class: 'button button-secondary', text: 'Cancel' });
      cancel.addEventListener('click', () => {
        formOpen = false;
        showStatus('', 'info');
        renderBody();
      });
      actions.append(cancel);
    }
    const inputs = { address, host, port, username, password };
    const form = el(
      'form',
      { class: 'bind-form channel-form', method: 'post', action: '#', novalidate: '', autocomplete: 'off' },
      [
        el('fieldset', { class: 'bind-fieldset' }, [
          el('legend', { text: 'Connect a mailbox' }),
          address.wrap,
          host.wrap,
          el('p', { class: 'choice' }, [
            secure,
            el('label', { for: secureId, text: 'Secure connection (TLS)' }),
          ]),
          port.wrap,
          username.wrap,
          password.wrap,
        ]),
        actions,
      ],
    );

    /** @param {string | null} name */
    function markInvalid(name) {
      for (const [key, f] of Object.entries(inputs)) {
        if (key === name) f.input.setAttribute('aria-invalid', 'true');
        else f.input.removeAttribute('aria-invalid');
      }
    }

    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      if (form.getAttribute('aria-busy') === 'true') return;
      const request = {
        address: address.input.value.trim(),
        host: host.input.value.trim(),
        port: Number(port.input.value.trim() || (secure.checked ? 993 : 143)),
        secure: secure.checked,
        username: username.input.value.trim() || address.input.value.trim(),
        password: password.input.value,
      };
      /** @type {[string, boolean, string][]} */
      const missing = [
        [
          'address',
          !/^[^\s@]+@[^\s@]+$/.test(request.address),
          'Enter the email address, like lettings@example.co.uk.',
        ],
        ['host', !request.host, 'Enter the incoming mail (IMAP) server.'],
        [
          'port',
          !Number.isInteger(request.port) || request.port < 1 || request.port > 65535,
          'The port is a number from 1 to 65535.',
        ],
        ['password', !request.password, 'Enter the password.'],
      ];
      const problem = missing.find(([, bad]) => bad);
      if (problem) {
        markInvalid(problem[0]);
        showStatus(problem[2], 'error');
        inputs[/** @type {keyof typeof inputs} */ (problem[0])].input.focus();
        return;
      }
      markInvalid(null);
      form.setAttribute('aria-busy', 'true');
      submit.setAttribute('aria-disabled', 'true');
      showStatus('Checking with your platform and logging in to the mailbox…', 'pending');
      try {
        const created = await connectMailbox(workspaceId, worker.id, request);
        password.input.value = '';
        formOpen = false;
        apply([...mailboxes.filter((m) => m.id !== created.id), created]);
        renderBody();
        showStatus(`Connected ${created.address}. Porter reads new mail there from now on.`, 'success');
        /** @type {HTMLElement | null} */ (body.querySelector('button'))?.focus();
      } catch (err) {
        password.input.value = '';
        const { message, field: name } = describeConnectError(err);
        markInvalid(name);
        showStatus(message, 'error');
        if (name && name in inputs) inputs[/** @type {keyof typeof inputs} */ (name)].input.focus();
      } finally {
        form.setAttribute('aria-busy', 'false');
        submit.setAttribute('aria-disabled', 'false');
      }
    });
    return form;
  }

  async function load() {
    try {
      mailboxes = (await listMailboxes(workspaceId, worker.id)).mailboxes ?? [];
      renderList();
      renderBody();
    } catch (err) {
      const retry = el('button', { type: 'button', class: 'button button-secondary', text: 'Try again' });
      retry.addEventListener('click', () => void load());
      body.replaceChildren(
        el('p', { class: 'settings-error', text: `Could not load the mailboxes. ${errorText(err)}` }),
        retry,
      );
    } finally {
      section.setAttribute('aria-busy', 'false');
    }
  }

  whenShownAgain(section, () => {
    if (timer === null && waiting()) void check();
  });

  list.hidden = true;
  void load();
  return section;
}
