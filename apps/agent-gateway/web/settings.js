// The Settings tab: the workspace's workers and, for a `property-uk` worker, the platform binding form; the worker
// that answers this chat also gets its Telegram section (settings-telegram.js).
// Everything is built with DOM calls (no HTML strings), and the platform key is read from its field only to go
// into the bind request's body; the field is emptied after a successful bind.
import { ApiError } from './chat-api.js';
import { el, formatDate } from './dom.js';
import { bindPlatform, getBinding, getWebContext, listWorkers, unbindPlatform } from './settings-api.js';
import { createTelegramSection } from './settings-telegram.js';

const PROPERTY_PACK = 'property-uk';
const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{1,62}$/;
const UNAVAILABLE = 'Workers are not available yet';

/** @param {number} n @param {string} one @param {string} many */
const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

/** @type {Record<string, string>} */
const FIELD_LABELS = { '#/tenantSlug': 'tenant slug', '#/apiKey': 'API key' };

/**
 * The bind failure in words, and which field (if any) it is about.
 * @param {unknown} err
 * @param {string} tenantSlug
 * @returns {{ message: string, field: 'tenantSlug' | 'apiKey' | null }}
 */
function describeBindError(err, tenantSlug) {
  if (!(err instanceof ApiError)) {
    return { message: 'Something went wrong while binding. Try again.', field: null };
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
        message: `The assistant bridge is not enabled for the tenant “${tenantSlug}” on the platform. Ask a platform administrator to turn it on, then try again.`,
        field: 'tenantSlug',
      };
    case 'tenant-mismatch':
      return {
        message: `This API key belongs to another tenant, not “${tenantSlug}”. Check the tenant slug or use that tenant's key.`,
        field: 'tenantSlug',
      };
    case 'platform-unreachable':
      return {
        message: 'The platform could not be reached, so nothing was changed. Try again in a moment.',
        field: null,
      };
    case 'skill-pack-required':
      return {
        message: `This worker does not have the ${PROPERTY_PACK} skill pack, so it cannot be bound to the platform.`,
        field: null,
      };
    case 'platform-bridge-disabled':
      return {
        message: 'The platform bridge is turned off on this gateway (PLATFORM_BRIDGE_ENABLED).',
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
        showMessage(`${UNAVAILABLE}: this gateway does not offer assistant workers.`);
      } else {
        showMessage(`Could not load the settings. ${errorText(err)}`, { retry: true, kind: 'error' });
      }
      return;
    }
    if (gen !== generation) return;
    const workspaceId = context && typeof context.workspaceId === 'string' ? context.workspaceId : null;
    if (!workspaceId) {
      showMessage(
        `${UNAVAILABLE}: no workspace is set up for this chat, or assistant workers are turned off on this gateway.`,
      );
      return;
    }

    let workers;
    try {
      ({ workers } = await listWorkers(workspaceId));
    } catch (err) {
      if (gen !== generation) return;
      if (err instanceof ApiError && err.code === 'workers-disabled') {
        showMessage(`${UNAVAILABLE}: assistant workers are turned off on this gateway (AI_WORKERS_ENABLED).`);
      } else {
        showMessage(`Could not load the workers. ${errorText(err)}`, { retry: true, kind: 'error' });
      }
      return;
    }
    if (gen !== generation) return;
    if (!Array.isArray(workers) || workers.length === 0) {
      showMessage('This workspace has no workers yet.');
      return;
    }

    // Bound workers' details (tenant, key preview, property count) before the list is shown.
    const bindings = await Promise.all(
      workers.map((w) =>
        w.bound
          ? getBinding(workspaceId, w.id).then(
              (b) => ({ binding: b, error: null }),
              (e) => ({ binding: null, error: errorText(e) }),
            )
          : Promise.resolve({ binding: null, error: null }),
      ),
    );
    if (gen !== generation) return;

    const chatWorkerId = context.worker && typeof context.worker.id === 'string' ? context.worker.id : null;
    const intro = el('p', {
      class: 'settings-intro',
      text: `${plural(workers.length, 'worker', 'workers')} in this workspace.`,
    });
    const list = el('ul', { class: 'worker-list', 'aria-label': 'Workers' });
    workers.forEach((worker, i) => {
      const item = renderWorker({
        workspaceId,
        worker,
        binding: bindings[i].binding,
        bindingError: bindings[i].error,
        isChatWorker: worker.id === chatWorkerId,
      });
      // Messaging channels for the worker this chat talks to, as the web chat's own settings.
      if (worker.id === chatWorkerId)
        item.querySelector('article')?.append(createTelegramSection({ workspaceId, worker }));
      list.append(item);
    });
    root.replaceChildren(intro, list);
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
 * One worker: its facts and, for a property-uk worker, the binding form.
 * @param {{ workspaceId: string, worker: any, binding: any, bindingError: string | null, isChatWorker: boolean }} o
 */
function renderWorker(o) {
  const { workspaceId, worker } = o;
  const base = `worker-${worker.id}`;
  const nameId = `${base}-name`;
  const packs = Array.isArray(worker.skillPacks) ? worker.skillPacks : [];

  const heading = el('h3', { class: 'worker-name', id: nameId, text: worker.name });
  const head = el('div', { class: 'worker-head' }, [heading]);
  if (o.isChatWorker) head.append(el('span', { class: 'badge', text: 'Answers this chat' }));

  const facts = el('dl', { class: 'worker-facts' });
  const card = el('article', { class: 'worker', 'aria-labelledby': nameId, 'data-worker-id': worker.id }, [
    head,
    facts,
  ]);
  const item = el('li', { class: 'worker-item' }, [card]);

  let binding = o.binding;
  let bound = Boolean(worker.bound);
  let bindingError = o.bindingError;

  /** @param {string} term @param {string} value @param {string} name */
  function fact(term, value, name) {
    facts.append(el('dt', { text: term }), el('dd', { text: value, 'data-fact': name }));
  }

  function renderFacts() {
    facts.replaceChildren();
    fact('Skill packs', packs.length > 0 ? packs.join(', ') : 'none', 'packs');
    if (worker.template) fact('Template', worker.template, 'template');
    if (!bound) {
      fact('Platform', 'Not bound', 'platform');
    } else if (binding) {
      fact('Platform', 'Bound', 'platform');
      fact('Tenant', binding.tenantSlug, 'tenant');
      fact('Key', binding.keyPreview, 'key');
      fact('Properties', String(binding.propertiesTotal), 'properties');
      fact('Bound on', formatDate(binding.boundAt), 'bound-at');
    } else {
      fact('Platform', bindingError ? `Bound (details unavailable: ${bindingError})` : 'Bound', 'platform');
    }
    card.dataset.bound = String(bound);
  }
  renderFacts();

  if (!packs.includes(PROPERTY_PACK)) return item;

  // --- the binding form (property-uk workers) ---
  const slugId = `${base}-tenant`;
  const keyId = `${base}-key`;
  const statusId = `${base}-status`;
  const hintId = `${base}-tenant-hint`;
  const legendId = `${base}-legend`;

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
    'aria-describedby': hintId,
  });
  if (binding) slug.value = binding.tenantSlug;
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
  });
  const bindButton = el('button', {
    type: 'submit',
    class: 'button button-primary',
    text: 'Bind',
    'aria-describedby': nameId,
  });
  const unbindButton = el('button', {
    type: 'button',
    class: 'button button-secondary',
    text: 'Unbind',
    'aria-describedby': nameId,
  });
  const status = el('p', { id: statusId, class: 'form-status', role: 'status', 'aria-live': 'polite' });

  const form = el(
    'form',
    { class: 'bind-form', method: 'post', action: '#', novalidate: '', autocomplete: 'off' },
    [
      el('fieldset', { class: 'bind-fieldset', 'aria-describedby': statusId }, [
        el('legend', { id: legendId, text: 'Property platform binding' }),
        el('div', { class: 'field' }, [
          el('label', { for: slugId, text: 'Tenant slug' }),
          slug,
          el('p', {
            id: hintId,
            class: 'field-hint',
            text: 'Lower-case letters, digits and hyphens, e.g. demo-lettings.',
          }),
        ]),
        el('div', { class: 'field' }, [el('label', { for: keyId, text: 'API key' }), key]),
        el('div', { class: 'form-actions' }, [bindButton, unbindButton]),
      ]),
      status,
    ],
  );
  card.append(form);

  let busy = false;
  /** @param {boolean} value */
  function setBusy(value) {
    busy = value;
    form.setAttribute('aria-busy', String(value));
    for (const b of [bindButton, unbindButton]) b.setAttribute('aria-disabled', String(value));
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
  function syncUnbind() {
    unbindButton.hidden = !bound;
  }
  syncUnbind();
  for (const input of [slug, key]) {
    input.addEventListener('input', () => input.removeAttribute('aria-invalid'));
  }

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (busy) return;
    const tenantSlug = slug.value.trim();
    if (!tenantSlug) {
      markInvalid('tenantSlug');
      showStatus('Enter the tenant slug.', 'error');
      slug.focus();
      return;
    }
    if (!SLUG_PATTERN.test(tenantSlug)) {
      markInvalid('tenantSlug');
      showStatus(
        'The tenant slug is not valid: use 2 to 63 lower-case letters, digits and hyphens, like demo-lettings.',
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
      const res = await bindPlatform(workspaceId, worker.id, tenantSlug, key.value);
      key.value = '';
      bound = true;
      bindingError = null;
      binding = {
        tenantSlug: res.tenantSlug,
        keyPreview: res.keyPreview,
        boundAt: res.boundAt,
        propertiesTotal: res.smokeTest.propertiesTotal,
      };
      slug.value = res.tenantSlug;
      renderFacts();
      syncUnbind();
      showStatus(
        `Bound to ${res.tenantSlug} — ${plural(res.smokeTest.propertiesTotal, 'property', 'properties')}.`,
        'success',
      );
    } catch (err) {
      const { message, field } = describeBindError(err, tenantSlug);
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
    const was = binding?.tenantSlug;
    showStatus('Unbinding…', 'pending');
    try {
      await unbindPlatform(workspaceId, worker.id);
      bound = false;
      binding = null;
      bindingError = null;
      renderFacts();
      showStatus(
        was
          ? `Unbound from ${was}. The worker no longer reads the platform.`
          : 'Unbound. The worker no longer reads the platform.',
        'success',
      );
      slug.focus(); // the Unbind button goes away
      syncUnbind();
    } catch (err) {
      showStatus(`Could not unbind. ${errorText(err)}`, 'error');
    } finally {
      setBusy(false);
    }
  });

  return item;
}
