// The Settings tab, in a letting agent's words: each assistant of the workspace (the one answering this chat first)
// with its property platform connection, Telegram, WhatsApp, the daily briefing and its own mailboxes for the chat's
// assistant (settings-telegram.js, settings-whatsapp.js, settings-summary.js, settings-email.js), its chat on a
// website for whoever may manage Porter (settings-embed.js), and the
// technical facts (ids, skill packs, the account's slug, the key's preview, the answering engine) in a closed
// "Advanced" section, for whoever runs Porter.
// Everything is built with DOM calls (no HTML strings), and the platform key is read from its field only to go
// into the bind request's body; the field is emptied after a successful connection.
import { ApiError, getProviders } from './chat-api.js';
import { el, formatDate } from './dom.js';
import { bindPlatform, getBinding, getWebContext, listWorkers, unbindPlatform } from './settings-api.js';
import { createDevicesSection } from './settings-devices.js';
import { createEmailSection } from './settings-email.js';
import { createEmbedSection } from './settings-embed.js';
import { createKnowledgeLine } from './settings-knowledge.js';
import { engineWords, formatDay, plural } from './settings-format.js';
import { createSummarySection } from './settings-summary.js';
import { createTelegramSection } from './settings-telegram.js';
import { createWhatsAppSection } from './settings-whatsapp.js';

const PROPERTY_PACK = 'property-uk';
const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{1,62}$/;
const UNAVAILABLE = 'Settings are not available yet';

/** @type {Record<string, string>} */
const FIELD_LABELS = { '#/tenantSlug': 'account name', '#/apiKey': 'API key' };

/**
 * The connection failure in words, and which field (if any) it is about.
 * @param {unknown} err
 * @param {string} account
 * @returns {{ message: string, field: 'tenantSlug' | 'apiKey' | null }}
 */
function describeBindError(err, account) {
  if (!(err instanceof ApiError)) {
    return { message: 'Something went wrong while connecting. Try again.', field: null };
  }
  switch (err.code) {
    case 'platform-key-rejected':
      return {
        message:
          'The platform refused this API key. Check that it is copied in full and has not been revoked.',
        field: 'apiKey',
      };
    case 'platform-bridge-not-enabled':
      return {
        message: `The platform has not turned on assistant access for the account “${account}”. Ask your platform administrator to turn it on, then try again.`,
        field: 'tenantSlug',
      };
    case 'tenant-mismatch':
      return {
        message: `This API key belongs to another account, not “${account}”. Check the account name, or use that account's key.`,
        field: 'tenantSlug',
      };
    case 'platform-unreachable':
      return {
        message: 'The platform could not be reached, so nothing was changed. Try again in a moment.',
        field: null,
      };
    case 'skill-pack-required':
      return {
        message: 'This assistant is not set up for lettings, so it cannot connect to a property platform.',
        field: null,
      };
    case 'platform-bridge-disabled':
      return {
        message:
          'Connecting to a property platform is turned off in this installation of Porter. Ask whoever runs it to turn it on.',
        field: null,
      };
    case 'validation-failed': {
      const withFields = /** @type {import('./chat-api.js').FieldsApiError} */ (err);
      const fields = Array.isArray(withFields.fields) ? withFields.fields : [];
      const first = fields.find((f) => f.pointer in FIELD_LABELS) ?? fields[0];
      if (first) {
        const label = FIELD_LABELS[first.pointer] ?? first.pointer.replace(/^#\//, '');
        return {
          message: `The ${label} is not valid: ${first.detail}.`,
          field:
            first.pointer === '#/apiKey' ? 'apiKey' : first.pointer === '#/tenantSlug' ? 'tenantSlug' : null,
        };
      }
      return { message: err.message, field: null };
    }
    default:
      return { message: err.message, field: null };
  }
}

/**
 * @param {HTMLElement} root the element the tab's contents live in (#settings-root)
 */
export function createSettings(root) {
  let generation = 0;

  /**
   * @param {string} text
   * @param {{ retry?: boolean, kind?: string }} [options]
   */
  function showMessage(text, { retry = false, kind = 'info' } = {}) {
    const p = el('p', { class: `settings-empty settings-${kind}`, text });
    /** @type {HTMLElement[]} */
    const children = [p];
    if (retry) {
      const button = el('button', { type: 'button', class: 'button button-secondary', text: 'Try again' });
      button.addEventListener('click', () => void refresh());
      children.push(button);
    }
    root.replaceChildren(...children);
  }

  /** @param {number} gen */
  async function load(gen) {
    let context;
    try {
      context = await getWebContext();
    } catch (err) {
      if (gen !== generation) return;
      if (err instanceof ApiError && err.status === 404) {
        showMessage(`${UNAVAILABLE}: this installation of Porter has no assistants to set up.`);
      } else {
        showMessage(`Could not load the settings. ${errorText(err)}`, { retry: true, kind: 'error' });
      }
      return;
    }
    if (gen !== generation) return;
    const workspaceId = context && typeof context.workspaceId === 'string' ? context.workspaceId : null;
    // With device tokens on: a device without the settings scope sees why, and whoever may manage devices gets
    // the Devices section under the assistants.
    const access = context?.access;
    const scopes = Array.isArray(access?.scopes) ? access.scopes : [];
    const devices =
      access?.mode === 'token' && scopes.includes('admin')
        ? createDevicesSection({
            workspaceId,
            currentDeviceId: typeof access.deviceId === 'string' ? access.deviceId : null,
          })
        : null;
    if (devices) await devices.refresh();
    if (gen !== generation) return;
    const withDevices = (/** @type {HTMLElement[]} */ ...nodes) =>
      root.replaceChildren(...nodes, ...(devices ? [devices.section] : []));
    if (access?.mode === 'token' && !scopes.includes('workers:write')) {
      withDevices(
        el('p', {
          class: 'settings-empty',
          text: 'This device is paired for chatting only. To change Porter’s settings, use a device that was paired with permission to change settings.',
        }),
      );
      return;
    }
    if (!workspaceId) {
      showMessage(
        `${UNAVAILABLE}: no assistant is set up for this chat yet, or assistants are turned off. Ask whoever runs Porter.`,
      );
      return;
    }

    let workers;
    try {
      ({ workers } = await listWorkers(workspaceId));
    } catch (err) {
      if (gen !== generation) return;
      if (err instanceof ApiError && err.code === 'workers-disabled') {
        showMessage(
          `${UNAVAILABLE}: assistants are turned off in this installation of Porter. Ask whoever runs it to turn them on.`,
        );
      } else {
        showMessage(`Could not load the settings. ${errorText(err)}`, { retry: true, kind: 'error' });
      }
      return;
    }
    if (gen !== generation) return;
    if (!Array.isArray(workers) || workers.length === 0) {
      showMessage('No assistant is set up yet. Ask whoever runs Porter to create one.');
      return;
    }

    // Connections' details (account, key preview, property count) and the answering engine, before anything shows.
    const [bindings, engine] = await Promise.all([
      Promise.all(
        workers.map((w) =>
          w.bound
            ? getBinding(workspaceId, w.id).then(
                (b) => ({ binding: b, error: null }),
                (e) => ({ binding: null, error: errorText(e) }),
              )
            : Promise.resolve({ binding: null, error: null }),
        ),
      ),
      getProviders().then(
        (/** @type {{ active?: unknown }} */ res) => (typeof res?.active === 'string' ? res.active : null),
        () => null,
      ),
    ]);
    if (gen !== generation) return;

    const chatWorkerId = context.worker && typeof context.worker.id === 'string' ? context.worker.id : null;
    // The chat's own assistant first: it is the one the page is about.
    const last = (/** @type {any} */ w) => Number(w.id !== chatWorkerId);
    const order = [...workers.keys()].sort((a, b) => last(workers[a]) - last(workers[b]));
    const intro = el('p', {
      class: 'settings-intro',
      text: 'Porter answers your questions from your property platform. Connect your platform account here, and Telegram or WhatsApp if you want to ask from your phone.',
    });
    const list = el('ul', { class: 'worker-list', 'aria-label': 'Assistants' });
    for (const i of order) {
      const worker = workers[i];
      const isChatWorker = worker.id === chatWorkerId;
      const card = renderWorker({
        workspaceId,
        worker,
        binding: bindings[i].binding,
        bindingError: bindings[i].error,
        isChatWorker,
        engine,
        dailySummary: context.features?.dailySummary === true,
        email: context.features?.email === true,
        // embed keys are managed by whoever may manage Porter (the admin scope; the operator holds every scope)
        embed: scopes.includes('admin'),
        // Messaging channels for the assistant this chat talks to, as the web chat's own settings.
        telegram: isChatWorker ? createTelegramSection({ workspaceId, worker }) : null,
        whatsapp: isChatWorker ? createWhatsAppSection({ workspaceId, worker }) : null,
      });
      list.append(card);
    }
    withDevices(intro, list);
  }

  /** Reloads the tab's contents; the current contents stay until the new ones are ready. */
  function refresh() {
    generation += 1;
    const gen = generation;
    root.setAttribute('aria-busy', 'true');
    return load(gen)
      .catch(() => {
        if (gen === generation) {
          showMessage('Could not load the settings.', { retry: true, kind: 'error' });
        }
      })
      .finally(() => {
        if (gen === generation) root.setAttribute('aria-busy', 'false');
      });
  }

  return { refresh };
}

/** @param {unknown} err */
function errorText(err) {
  return err instanceof ApiError ? err.message : 'Something went wrong. Try again.';
}

/**
 * @typedef {{ tenantSlug: string, keyPreview: string, boundAt: string, propertiesTotal: number,
 *   keyRefusedAt: string | null }} Binding
 * @typedef {{ workspaceId: string, worker: any, binding: Binding | null, bindingError: string | null,
 *   isChatWorker: boolean, engine: string | null, dailySummary: boolean, email: boolean, embed: boolean,
 *   telegram: HTMLElement | null, whatsapp: HTMLElement | null }} WorkerOptions
 */

/**
 * One assistant: what it does, its platform connection (for a lettings assistant), Telegram, WhatsApp, and Advanced.
 * @param {WorkerOptions} o
 */
function renderWorker(o) {
  const { worker } = o;
  const base = `worker-${worker.id}`;
  const nameId = `${base}-name`;
  const packs = Array.isArray(worker.skillPacks) ? worker.skillPacks : [];
  const lettings = packs.includes(PROPERTY_PACK);
  // In sentences the chat's own assistant is Porter; another one goes by its name.
  const who = o.isChatWorker ? 'Porter' : worker.name;

  const head = el('div', { class: 'worker-head' }, [
    el('p', {
      class: 'worker-role',
      text: o.isChatWorker ? 'Your assistant' : 'Another assistant',
    }),
    el('h3', { class: 'worker-name', id: nameId, text: worker.name }),
  ]);
  if (o.isChatWorker) head.append(el('span', { class: 'badge', text: 'Answers this chat' }));
  const about = el('p', {
    class: 'worker-about',
    text: lettings
      ? `${who} reads your portfolio from the platform: properties, certificates, tenancies, arrears and deals.`
      : `${who} answers general questions; it is not set up to read a property platform.`,
  });

  const card = el('article', { class: 'worker', 'aria-labelledby': nameId, 'data-worker-id': worker.id }, [
    head,
    about,
  ]);
  const item = el('li', { class: 'worker-item' }, [card]);

  const state = { binding: o.binding, bound: Boolean(worker.bound), bindingError: o.bindingError };
  const advanced = renderAdvanced(o, state);
  const sync = () => {
    card.dataset.bound = String(state.bound);
    advanced.update();
  };
  if (lettings) card.append(renderPlatform(o, state, who, nameId, sync));
  if (o.telegram) card.append(o.telegram);
  if (o.whatsapp) card.append(o.whatsapp);
  // the daily briefing of the chat's own lettings assistant (settings-summary.js)
  if (o.isChatWorker && lettings)
    card.append(
      createSummarySection({
        workspaceId: o.workspaceId,
        worker,
        available: o.dailySummary,
        bound: () => state.bound,
      }),
    );
  // the mailboxes the chat's own lettings assistant reads itself (settings-email.js), when the gateway allows it
  if (o.isChatWorker && lettings && o.email)
    card.append(createEmailSection({ workspaceId: o.workspaceId, worker, bound: () => state.bound }));
  // the assistant's chat on the agency's own website or intranet (settings-embed.js)
  if (o.embed) card.append(createEmbedSection({ workspaceId: o.workspaceId, worker, who }));
  card.append(advanced.element);
  sync();
  return item;
}

/**
 * @typedef {{ binding: Binding | null, bound: boolean, bindingError: string | null }} PlatformState
 */

/**
 * The technical facts, closed until asked for: what someone setting Porter up or asking for help needs.
 * @param {WorkerOptions} o
 * @param {PlatformState} state
 */
function renderAdvanced(o, state) {
  const { worker } = o;
  const packs = Array.isArray(worker.skillPacks) ? worker.skillPacks : [];
  const facts = el('dl', { class: 'worker-facts advanced-facts' });
  const element = el('details', { class: 'advanced', 'data-advanced': '' }, [
    el('summary', { class: 'advanced-summary', text: 'Advanced' }),
    facts,
  ]);

  /** @param {string} term @param {string} value @param {string} name @param {boolean} [code] as typed in code */
  function fact(term, value, name, code = true) {
    const dd = el('dd', { text: value, 'data-fact': name });
    if (code) dd.className = 'code';
    facts.append(el('dt', { text: term }), dd);
  }

  function update() {
    facts.replaceChildren();
    if (o.isChatWorker && o.engine) {
      fact('Answers from', engineWords(o.engine), 'engine', false);
      fact('Provider', o.engine, 'provider');
    }
    fact('Worker name', worker.name, 'worker-name', false);
    fact('Worker id', worker.id, 'worker-id');
    fact('Workspace id', o.workspaceId, 'workspace-id');
    fact('Template', worker.template ?? 'none', 'template');
    fact('Skill packs', packs.length > 0 ? packs.join(', ') : 'none', 'packs');
    if (state.bound && state.binding) {
      fact('Tenant slug', state.binding.tenantSlug, 'tenant');
      fact('Key', state.binding.keyPreview, 'key');
      fact('Bound at', formatDate(state.binding.boundAt), 'bound-at', false);
      fact('Properties at binding', String(state.binding.propertiesTotal), 'properties', false);
      if (state.binding.keyRefusedAt)
        fact('Key refused since', formatDate(state.binding.keyRefusedAt), 'key-refused', false);
    } else {
      fact('Platform binding', state.bound ? 'bound (details unavailable)' : 'none', 'binding', false);
    }
  }
  return { element, update };
}

/**
 * The property platform connection: where it stands in a sentence, and the form that connects, changes or
 * disconnects it.
 * @param {WorkerOptions} o
 * @param {PlatformState} state
 * @param {string} who
 * @param {string} nameId
 * @param {() => void} onChange
 */
function renderPlatform(o, state, who, nameId, onChange) {
  const { workspaceId, worker } = o;
  const base = `worker-${worker.id}`;
  const headingId = `${base}-platform-heading`;
  const slugId = `${base}-tenant`;
  const keyId = `${base}-key`;
  const statusId = `${base}-status`;
  const slugHintId = `${base}-tenant-hint`;
  const keyHintId = `${base}-key-hint`;

  const summary = el('p', { class: 'connection-state', 'data-fact': 'platform' });
  const knowledge = createKnowledgeLine({ workspaceId, workerId: worker.id, who });
  const legend = el('legend', {});

  const slug = el('input', {
    id: slugId,
    name: 'tenantSlug',
    type: 'text',
    class: 'field-input',
    autocomplete: 'off',
    autocapitalize: 'none',
    spellcheck: 'false',
    inputmode: 'url',
    maxlength: '63',
    required: '',
    'aria-describedby': slugHintId,
  });
  if (state.binding) slug.value = state.binding.tenantSlug;
  const key = el('input', {
    id: keyId,
    name: 'apiKey',
    type: 'password',
    class: 'field-input',
    autocomplete: 'off',
    autocapitalize: 'none',
    spellcheck: 'false',
    maxlength: '200',
    required: '',
    'aria-describedby': keyHintId,
  });
  const bindButton = el('button', {
    type: 'submit',
    class: 'button button-primary',
    text: 'Connect',
    'aria-describedby': nameId,
  });
  const unbindButton = el('button', {
    type: 'button',
    class: 'button button-secondary',
    text: 'Disconnect',
    'aria-describedby': nameId,
  });
  // Once connected, the fields stay out of the way until the user asks to change the account or the key.
  const changeButton = el('button', {
    type: 'button',
    class: 'button button-secondary',
    text: 'Change account or key',
    'aria-describedby': nameId,
  });
  const cancelButton = el('button', { type: 'button', class: 'button button-secondary', text: 'Cancel' });
  let editing = false;
  const status = el('p', { id: statusId, class: 'form-status', role: 'status', 'aria-live': 'polite' });

  const fields = el('div', { class: 'bind-fields' }, [
    el('div', { class: 'field' }, [
      el('label', { for: slugId, text: 'Account name' }),
      slug,
      el('p', {
        id: slugHintId,
        class: 'field-hint',
        text: 'Your agency’s account on the property platform, in lower-case letters, digits and hyphens, like demo-lettings. Your platform administrator gives it to you with the key.',
      }),
    ]),
    el('div', { class: 'field' }, [
      el('label', { for: keyId, text: 'API key' }),
      key,
      el('p', {
        id: keyHintId,
        class: 'field-hint',
        text: `Your platform administrator creates it for ${who}; it starts with plat_ and is shown to them only once. ${who} keeps it encrypted and never shows it again.`,
      }),
    ]),
  ]);
  const fieldset = el('fieldset', { class: 'bind-fieldset', 'aria-describedby': statusId }, [legend, fields]);
  const form = el(
    'form',
    { class: 'bind-form', method: 'post', action: '#', novalidate: '', autocomplete: 'off' },
    [
      fieldset,
      el('div', { class: 'form-actions' }, [bindButton, changeButton, cancelButton, unbindButton]),
      status,
    ],
  );
  const section = el(
    'section',
    { class: 'platform-section', 'aria-labelledby': headingId, 'data-section': 'platform' },
    [
      el('h4', { id: headingId, class: 'section-heading', text: 'Property platform' }),
      summary,
      knowledge.element,
      form,
    ],
  );

  function renderState() {
    const { binding, bound, bindingError } = state;
    // the platform answered one of the assistant's calls "unknown key" (revoked, most likely): not connected in fact
    const refused = bound && Boolean(binding?.keyRefusedAt);
    summary.dataset.state = refused ? 'refused' : bound ? 'connected' : 'not-connected';
    if (!bound) {
      summary.textContent = `Not connected: connect your platform account so ${who} can answer from your properties.`;
    } else if (binding && refused) {
      summary.replaceChildren(
        `The platform no longer accepts ${who}’s key for the account `,
        el('strong', { text: binding.tenantSlug, 'data-account': '' }),
        ' — it may have been revoked. Connect again with a new key from the platform’s Remote access settings.',
      );
    } else if (binding) {
      summary.replaceChildren(
        'Connected to the account ',
        el('strong', { text: binding.tenantSlug, 'data-account': '' }),
        ` since ${formatDay(binding.boundAt)}. ${who} can see ${plural(binding.propertiesTotal, 'property', 'properties')}.`,
      );
    } else {
      summary.textContent = `Connected. The details could not be loaded: ${bindingError ?? 'try again later'}`;
    }
    legend.textContent = refused
      ? 'Connect again with a new key'
      : bound
        ? 'Use another account or a new key'
        : 'Connect your platform account';
    // a refused key leaves nothing to keep: the fields are open for the new one
    const open = !bound || editing || refused;
    fieldset.hidden = !open;
    bindButton.hidden = !open;
    changeButton.hidden = open;
    cancelButton.hidden = !(bound && editing && !refused);
    unbindButton.hidden = !bound;
    void knowledge.update(bound);
    onChange();
  }
  renderState();

  let busy = false;
  /** @param {boolean} value */
  function setBusy(value) {
    busy = value;
    form.setAttribute('aria-busy', String(value));
    for (const b of [bindButton, changeButton, cancelButton, unbindButton])
      b.setAttribute('aria-disabled', String(value));
  }
  /** @param {string} text @param {string} kind */
  function showStatus(text, kind) {
    status.textContent = text;
    status.dataset.kind = kind;
  }
  /** @param {'tenantSlug' | 'apiKey' | null} field */
  function markInvalid(field) {
    for (const input of [slug, key]) {
      if (input.name === field) input.setAttribute('aria-invalid', 'true');
      else input.removeAttribute('aria-invalid');
    }
  }
  for (const input of [slug, key]) {
    input.addEventListener('input', () => input.removeAttribute('aria-invalid'));
  }
  changeButton.addEventListener('click', () => {
    if (busy) return;
    editing = true;
    renderState();
    showStatus('', 'info');
    key.focus(); // the account is filled in already: a new key is the usual change
  });
  cancelButton.addEventListener('click', () => {
    if (busy) return;
    editing = false;
    key.value = '';
    if (state.binding) slug.value = state.binding.tenantSlug;
    markInvalid(null);
    showStatus('', 'info');
    renderState();
    changeButton.focus();
  });

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (busy) return;
    const account = slug.value.trim();
    if (!account) {
      markInvalid('tenantSlug');
      showStatus('Enter the account name.', 'error');
      slug.focus();
      return;
    }
    if (!SLUG_PATTERN.test(account)) {
      markInvalid('tenantSlug');
      showStatus(
        'The account name is not valid: use 2 to 63 lower-case letters, digits and hyphens, like demo-lettings.',
        'error',
      );
      slug.focus();
      return;
    }
    if (!key.value) {
      markInvalid('apiKey');
      showStatus('Enter the API key.', 'error');
      key.focus();
      return;
    }
    markInvalid(null);
    setBusy(true);
    showStatus('Checking the key with the platform…', 'pending');
    try {
      const res = await bindPlatform(workspaceId, worker.id, account, key.value);
      key.value = '';
      state.bound = true;
      state.bindingError = null;
      state.binding = {
        tenantSlug: res.tenantSlug,
        keyPreview: res.keyPreview,
        boundAt: res.boundAt,
        propertiesTotal: res.smokeTest.propertiesTotal,
        keyRefusedAt: null,
      };
      slug.value = res.tenantSlug;
      editing = false;
      renderState();
      changeButton.focus(); // the Connect button goes away
      showStatus(
        `Connected to ${res.tenantSlug}: ${who} can see ${plural(res.smokeTest.propertiesTotal, 'property', 'properties')}.`,
        'success',
      );
    } catch (err) {
      const { message, field } = describeBindError(err, account);
      markInvalid(field);
      showStatus(message, 'error');
      if (field === 'apiKey') key.focus();
      else if (field === 'tenantSlug') slug.focus();
    } finally {
      setBusy(false);
    }
  });

  unbindButton.addEventListener('click', async () => {
    if (busy) return;
    setBusy(true);
    const was = state.binding?.tenantSlug;
    showStatus('Disconnecting…', 'pending');
    try {
      await unbindPlatform(workspaceId, worker.id);
      state.bound = false;
      state.binding = null;
      state.bindingError = null;
      editing = false;
      renderState();
      slug.focus(); // the Disconnect button goes away
      showStatus(
        `Disconnected${was ? ` from ${was}` : ''}. ${who} no longer reads your platform.`,
        'success',
      );
    } catch (err) {
      showStatus(`Could not disconnect. ${errorText(err)}`, 'error');
    } finally {
      setBusy(false);
    }
  });

  return section;
}
