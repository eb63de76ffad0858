// The admin-key sign-in every settings page starts with: the key form of the page's HTML (#key-panel), the key kept
// in this tab's sessionStorage, "Forget key" in the top bar, and a key the platform refuses (401 invalid-api-key)
// sending the page back to the key form. What the key opens is the page's own (`SignInPage`).

import { ApiError } from './api.js';
import { KEY_REFUSED } from './messages.js';
import { $, announce, showError } from './page.js';

// One name for every settings page, so that going from one to another in this tab does not ask for the key again
// (the review queue's, the first page that had it). The key never goes in a URL.
const KEY_STORAGE = 'review-queue.admin-key';

/** sessionStorage may be unavailable (a locked-down browser): then the key lives as long as the page. */
const keyStore = {
  /** @type {string | null} */
  memory: null,
  /** @returns {string | null} */
  get() {
    try {
      return sessionStorage.getItem(KEY_STORAGE);
    } catch {
      return this.memory;
    }
  },
  /** @param {string | null} key */
  set(key) {
    this.memory = key;
    try {
      if (key) sessionStorage.setItem(KEY_STORAGE, key);
      else sessionStorage.removeItem(KEY_STORAGE);
    } catch {
      // kept in memory only
    }
  },
};

/**
 * What a page tells the sign-in.
 * @typedef {{
 *   neededBy: string,
 *   content: HTMLElement[],
 *   open: (key: string, opts: { fromKeyForm: boolean }) => Promise<void>,
 *   forget: () => void,
 * }} SignInPage
 * - neededBy: who needs an admin key, for the words refusing an assistant's key ("The review queue needs")
 * - content: what the key opens, hidden while the key form shows
 * - open: checks the key with the platform and shows what it opens (calling `signedIn`); from the key form the
 *   key is stored only once the platform accepted it
 * - forget: drops whatever the page shows for the key (its lists, a secret on show, an open dialog) and any answer
 *   still on its way for it
 */

/** @param {SignInPage} page */
export function createSignIn(page) {
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
  };

  /** @param {string | null} message */
  function setKeyError(message) {
    showError(ui.keyError, message);
    if (message) ui.keyInput.setAttribute('aria-invalid', 'true');
    else ui.keyInput.removeAttribute('aria-invalid');
  }

  /** Forgets the key (and all the page showed for it) and asks for a key. @param {string | null} [error] */
  function showKeyForm(error = null) {
    keyStore.set(null);
    page.forget();
    ui.booting.hidden = true;
    for (const el of page.content) el.hidden = true;
    ui.account.hidden = true;
    ui.keyPanel.hidden = false;
    ui.keyInput.value = '';
    setKeyError(error);
    ui.keyInput.focus();
  }

  /**
   * The page is open with `key`: stored for the tab, the key form gone, the top bar saying whose key it is.
   * @param {string} key
   * @param {string} preview the top bar's words for the key (never the whole key)
   * @param {{ focus?: boolean }} [opts] focus: start again at the top of the page (the key form went with the focus)
   */
  function signedIn(key, preview, { focus = false } = {}) {
    keyStore.set(key);
    ui.booting.hidden = true;
    ui.keyPanel.hidden = true;
    ui.account.hidden = false;
    ui.keyPreview.textContent = preview;
    if (focus) ui.main.focus();
  }

  /** The key was refused (revoked meanwhile): it is forgotten and asked for again. Returns the key input, focused. */
  function keyRefused() {
    showKeyForm(KEY_REFUSED);
    return ui.keyInput;
  }

  /**
   * Handles the platform refusing the key `open` tried: said under the key form (where the key was pasted), or the
   * page asks for a key again. Returns whether `err` was that.
   * @param {unknown} err
   * @param {boolean} fromKeyForm
   */
  function refusedOnOpen(err, fromKeyForm) {
    if (!(err instanceof ApiError) || err.code !== 'invalid-api-key') return false;
    if (fromKeyForm) setKeyError(KEY_REFUSED);
    else keyRefused();
    return true;
  }

  ui.keyForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const key = ui.keyInput.value.trim();
    if (!key) return setKeyError('Paste your admin key first.');
    if (key.startsWith('plat_')) {
      return setKeyError(
        `That is an assistant’s API key. ${page.neededBy} an admin key, which starts with padm_.`,
      );
    }
    if (!key.startsWith('padm_'))
      return setKeyError('Admin keys start with padm_. Check it and paste it again.');
    setKeyError(null);
    ui.keySubmit.disabled = true;
    void page.open(key, { fromKeyForm: true }).finally(() => {
      ui.keySubmit.disabled = false;
    });
  });
  ui.keyForm.addEventListener('reset', () => setKeyError(null));

  ui.forgetKey.addEventListener('click', () => {
    showKeyForm();
    announce('The admin key is forgotten in this tab.');
  });

  return {
    /** The key of this tab, or null. */
    key: () => keyStore.get(),
    showKeyForm,
    setKeyError,
    signedIn,
    keyRefused,
    refusedOnOpen,
    /** Opens the page with the tab's key, or asks for one. */
    start() {
      const stored = keyStore.get();
      if (stored) void page.open(stored, { fromKeyForm: false });
      else showKeyForm();
    },
  };
}
