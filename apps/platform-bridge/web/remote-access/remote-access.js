// The remote-access settings page (issue 37): the admin pastes an admin key once (kept in this tab's
// sessionStorage, shared with the review queue's page), and the page shows what that key may manage: connecting an
// assistant (a remote key, shown once), the key lists, the assistant flags, signed events and the access audit.
import { ApiError, whoami } from './api.js';
import { createAuditSection } from './audit.js';
import { createConnectSection } from './connect.js';
import { createEventsSection } from './events.js';
import { createFlagsSection } from './flags.js';
import { createKeysSection } from './keys.js';
import { KEY_REFUSED, problemMessage } from './messages.js';
import { $, announce, keyStore, showError } from './page-kit.js';

/** @typedef {import('./types.js').FlagName} FlagName */

const ui = {
  main: $('main'),
  booting: $('booting'),
  account: $('account'),
  keyPreview: $('key-preview'),
  forgetKey: /** @type {HTMLButtonElement} */ ($('forget-key')),
  keyPanel: $('key-panel'),
  keyForm: /** @type {HTMLFormElement} */ ($('key-form')),
  keyInput: /** @type {HTMLInputElement} */ ($('key-input')),
  keySubmit: /** @type {HTMLButtonElement} */ ($('key-submit')),
  keyError: $('key-input-error'),
  noAccess: $('no-access'),
  settings: $('settings'),
};

let generation = 0; // answers for a key that was forgotten meanwhile are dropped

/** @type {import('./page-kit.js').PageContext} */
const base = {
  key: () => keyStore.get(),
  keyRefused: () => showKeyForm(KEY_REFUSED),
  // every change leaves an audit entry: the list below shows it
  changed: () => void audit.load(),
};

const connect = createConnectSection({ ...base, keyCreated: () => void keys.load() });
const keys = createKeysSection({
  ...base,
  ownKeyRevoked: () => showKeyForm('Your admin key is revoked. Paste another admin key to go on.'),
  remoteKeyRevoked: (id) => connect.keyRevoked(id),
});
const flags = createFlagsSection({
  ...base,
  flagsChanged(/** @type {Map<FlagName, boolean>} */ state) {
    connect.setWrites(state.get('assistant_bridge_writes') === true);
    events.setFlag(state.get('platform_event_webhooks') === true);
  },
});
const events = createEventsSection(base);
const audit = createAuditSection(base);
const sections = [connect, keys, flags, events, audit];

// ---- the key ------------------------------------------------------------------------------------------------

/** @param {string | null} message */
function setKeyError(message) {
  showError(ui.keyError, message);
  if (message) ui.keyInput.setAttribute('aria-invalid', 'true');
  else ui.keyInput.removeAttribute('aria-invalid');
}

/** Forgets the key (and every secret shown) and asks for a key. @param {string | null} [error] */
function showKeyForm(error = null) {
  generation++;
  keyStore.set(null);
  for (const s of sections) s.reset();
  ui.booting.hidden = true;
  ui.settings.hidden = true;
  ui.noAccess.hidden = true;
  ui.account.hidden = true;
  ui.keyPanel.hidden = false;
  ui.keyInput.value = '';
  setKeyError(error);
  ui.keyInput.focus();
}

/**
 * Checks the key with the platform and opens what it may manage. From the key form, the key is stored only once
 * the platform accepted it.
 * @param {string} key
 * @param {{ fromKeyForm?: boolean }} [opts]
 */
async function open(key, { fromKeyForm = false } = {}) {
  const mine = ++generation;
  let me;
  try {
    me = await whoami(key);
  } catch (err) {
    if (mine !== generation) return;
    if (!(err instanceof ApiError)) throw err;
    if (err.code === 'invalid-api-key')
      return fromKeyForm ? setKeyError(KEY_REFUSED) : showKeyForm(KEY_REFUSED);
    if (fromKeyForm) return setKeyError(problemMessage(err));
    // a stored key the platform cannot check just now: ask again rather than show a half-empty page
    return showKeyForm(problemMessage(err));
  }
  if (mine !== generation) return;
  keyStore.set(key);
  ui.booting.hidden = true;
  ui.keyPanel.hidden = true;
  ui.account.hidden = false;
  ui.keyPreview.textContent = `${me.label} · ${me.tenant.name}`;
  const mayManage = me.scopes.includes('access:manage');
  ui.noAccess.hidden = mayManage;
  ui.settings.hidden = !mayManage;
  if (fromKeyForm) ui.main.focus(); // the key form is gone with the focus in it: start again at the top
  if (!mayManage) return;
  connect.setAccount(me);
  await Promise.all([flags.load(), keys.load(), events.load(), audit.load()]);
}

ui.keyForm.addEventListener('submit', (e) => {
  e.preventDefault();
  const key = ui.keyInput.value.trim();
  if (!key) return setKeyError('Paste your admin key first.');
  if (key.startsWith('plat_')) {
    return setKeyError(
      'That is an assistant’s API key. These settings need an admin key, which starts with padm_.',
    );
  }
  if (!key.startsWith('padm_'))
    return setKeyError('Admin keys start with padm_. Check it and paste it again.');
  setKeyError(null);
  ui.keySubmit.disabled = true;
  void open(key, { fromKeyForm: true }).finally(() => {
    ui.keySubmit.disabled = false;
  });
});

ui.forgetKey.addEventListener('click', () => {
  showKeyForm();
  announce('The admin key is forgotten in this tab.');
});

// ---- start ----------------------------------------------------------------------------------------------------

const stored = keyStore.get();
if (stored) void open(stored);
else showKeyForm();
