// What the page's sections share: finding their elements, the admin key of this tab, the status line, and showing a
// failure in words where it happened.
import { ApiError } from './api.js';
import { problemMessage } from './messages.js';

// The review queue keeps its admin key under the same name, so that going from one settings page to the other in
// this tab does not ask for it again. The key never goes in a URL.
const KEY_STORAGE = 'review-queue.admin-key';

/**
 * @template {HTMLElement} T
 * @param {string} id
 * @returns {T}
 */
export function $(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing`);
  return /** @type {T} */ (el);
}

/** sessionStorage may be unavailable (a locked-down browser): then the key lives as long as the page. */
export const keyStore = {
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

let toastTimer = 0;

/** Says `message` in the status line (read out by screen readers) for a few seconds. @param {string} message */
export function announce(message) {
  const toast = $('toast');
  toast.textContent = message;
  toast.classList.add('toast-visible');
  clearTimeout(toastTimer);
  toastTimer = window.setTimeout(() => toast.classList.remove('toast-visible'), 8000);
}

/**
 * Shows `message` in an error paragraph, or hides it.
 * @param {HTMLElement} el
 * @param {string | null} message
 */
export function showError(el, message) {
  el.textContent = message ?? '';
  el.hidden = !message;
}

/**
 * What each section does with a failed call: a refused key sends the page back to the key form (through
 * `keyRefused`); anything else is said in words in the section's error paragraph.
 * @typedef {{ key: () => string | null, keyRefused: () => void, changed: () => void }} PageContext
 */

/**
 * @param {PageContext} ctx
 * @param {unknown} err
 * @param {HTMLElement} where
 */
export function failIn(ctx, err, where) {
  if (!(err instanceof ApiError)) throw err;
  if (err.code === 'invalid-api-key') return ctx.keyRefused();
  showError(where, problemMessage(err));
}
