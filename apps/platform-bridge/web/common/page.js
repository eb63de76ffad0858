// What every settings page does with its elements: finding them, the status line, an error paragraph.

/**
 * The page's element with this id; a missing one is a mistake in the page's HTML, so it throws at once.
 * @template {HTMLElement} T
 * @param {string} id
 * @returns {T}
 */
export function $(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing`);
  return /** @type {T} */ (el);
}

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
