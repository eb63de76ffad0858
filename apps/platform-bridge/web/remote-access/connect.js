// "Connect an assistant": the binding procedure in three steps, and step 1's one action — a remote key with the
// right scopes (bridge:read, plus bridge:propose when the assistant may propose changes), shown once with the
// values to paste into the assistant's Settings tab.
import { ApiError, createRemoteKey } from './api.js';
import { $, announce, failIn, showError } from './page-kit.js';
import { createReveal } from './reveal.js';

/** @typedef {import('./page-kit.js').PageContext} PageContext */
/** @typedef {import('./types.js').Whoami} Whoami */

/** The line whoever runs the assistant sets (the gateway's PLATFORM_BASE_URL): this platform's address. */
export const platformLine = () => `PLATFORM_BASE_URL=${location.origin}`;

/**
 * @param {PageContext & { keyCreated: () => void }} ctx
 */
export function createConnectSection(ctx) {
  const form = /** @type {HTMLFormElement} */ ($('create-key-form'));
  const label = /** @type {HTMLInputElement} */ ($('key-label'));
  const labelError = $('key-label-error');
  const propose = /** @type {HTMLInputElement} */ ($('key-propose'));
  const formError = $('create-key-error');
  const submit = /** @type {HTMLButtonElement} */ ($('create-key'));
  const reveal = createReveal({
    box: $('new-key'),
    lines: $('new-key-lines'),
    done: /** @type {HTMLButtonElement} */ ($('new-key-done')),
    prefix: 'new-key',
  });
  let slug = '';
  /** @type {number | null} the key whose secret is on show */
  let shownKeyId = null;
  // The checkbox follows the writes switch until the admin ticks or clears it themselves.
  let proposeTouched = false;
  propose.addEventListener('change', () => (proposeTouched = true));

  /** @param {string | null} message */
  function setLabelError(message) {
    showError(labelError, message);
    if (message) label.setAttribute('aria-invalid', 'true');
    else label.removeAttribute('aria-invalid');
  }

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const key = ctx.key();
    if (!key) return ctx.keyRefused();
    const text = label.value.trim();
    showError(formError, null);
    if (!text) {
      setLabelError('Say what the key is for, so that you can tell it apart later.');
      label.focus();
      return;
    }
    setLabelError(null);
    submit.disabled = true;
    try {
      const scopes = propose.checked ? ['bridge:read', 'bridge:propose'] : ['bridge:read'];
      const created = await createRemoteKey(key, { label: text, scopes });
      form.reset();
      proposeTouched = false;
      ctx.keyCreated();
      ctx.changed();
      shownKeyId = created.key.id;
      reveal.show(
        [
          { label: 'API key', value: created.secret, name: 'key', copy: 'Copy key', secret: true },
          { label: 'Account name', value: slug, name: 'account', copy: 'Copy account name' },
          { label: 'Platform address line', value: platformLine(), name: 'platform-line', copy: 'Copy line' },
        ],
        label,
      );
      announce(`Key “${text}” created. Copy it now: it is shown only once.`);
    } catch (err) {
      if (err instanceof ApiError && err.fields.some((f) => f.pointer === '#/label')) {
        setLabelError(`The description ${err.fields.find((f) => f.pointer === '#/label')?.detail}.`);
        label.focus();
      } else {
        failIn(ctx, err, formError);
      }
    } finally {
      submit.disabled = false;
    }
  });

  return {
    /** @param {Whoami} me */
    setAccount(me) {
      slug = me.tenant.slug;
      $('account-slug').textContent = slug;
      $('platform-line').textContent = platformLine();
      // a label ready to go, so that creating a key is one press; form.reset() brings it back
      label.defaultValue = `Assistant for ${me.tenant.name}`;
    },
    /** The writes switch as it is now: it decides the checkbox's default. @param {boolean} on */
    setWrites(on) {
      propose.defaultChecked = on;
      if (!proposeTouched) propose.checked = on;
    },
    /** A key revoked meanwhile is not worth copying: its box closes. @param {number} id */
    keyRevoked(id) {
      if (id === shownKeyId) reveal.hide();
    },
    /** Forgets a shown key (the admin key was forgotten or refused). */
    reset() {
      reveal.hide();
      form.reset();
      setLabelError(null);
      showError(formError, null);
    },
  };
}
