// The Settings tab's small DOM helpers: elements are built with DOM calls, never from HTML strings.

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, string>} [attrs] `text` sets the text content, `class` the class name
 * @param {(Node | string)[]} [children]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name === 'text') node.textContent = value;
    else if (name === 'class') node.className = value;
    else node.setAttribute(name, value);
  }
  node.append(...children);
  return node;
}

/**
 * A time as a UK reader writes it (23 Nov 2026, 19:19), whatever the browser's language.
 * @param {string} iso
 */
export function formatDate(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
}

/**
 * Asks "remove …?" in place of the Remove button: the question, "Yes, remove" and Cancel take the button's place in
 * `actions`; Cancel puts the button back. `onYes` does the removal and says what happened; while it runs the yes
 * button is disabled, and it is enabled again when `onYes` reports a failure by returning false.
 * @param {HTMLElement} actions
 * @param {HTMLButtonElement} remove
 * @param {string} question
 * @param {() => Promise<boolean>} onYes
 * @param {string} [yesLabel] the yes button's words, when the thing is not removed but, say, revoked
 */
export function confirmInPlace(actions, remove, question, onYes, yesLabel = 'Yes, remove') {
  const yes = el('button', { type: 'button', class: 'button button-danger', text: yesLabel });
  const no = el('button', { type: 'button', class: 'button button-secondary', text: 'Cancel' });
  no.addEventListener('click', () => {
    actions.replaceChildren(remove);
    remove.focus();
  });
  yes.addEventListener('click', async () => {
    yes.disabled = true;
    if (!(await onYes())) yes.disabled = false;
  });
  actions.replaceChildren(el('p', { class: 'confirm-question', text: question }), yes, no);
  no.focus();
}

/**
 * True when the page is visible and `section` is in it, not inside a hidden tab panel: only then is it worth
 * checking on the server for it.
 * @param {HTMLElement} section
 */
export function sectionShown(section) {
  return document.visibilityState === 'visible' && section.isConnected && !section.closest('[hidden]');
}

/**
 * Calls `resume` each time the page becomes visible again while `section` is shown; stops listening once the
 * section has left the page.
 * @param {HTMLElement} section
 * @param {() => void} resume
 */
export function whenShownAgain(section, resume) {
  function onVisibility() {
    if (!section.isConnected) {
      document.removeEventListener('visibilitychange', onVisibility);
      return;
    }
    if (sectionShown(section)) resume();
  }
  document.addEventListener('visibilitychange', onVisibility);
}

/**
 * Puts `text` on the clipboard: with the clipboard API, else the old way (a selected, hidden text box and the copy
 * command), since the API needs a secure origin and a phone on the LAN has none. Focus stays where it was. True
 * when the text was copied.
 * @param {string} text
 */
export async function copyToClipboard(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return copyBySelection(text);
  }
}

/** @param {string} text */
function copyBySelection(text) {
  const focused = document.activeElement;
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  area.select();
  let ok;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  area.remove();
  if (focused instanceof HTMLElement) focused.focus();
  return ok;
}
