// A confirmation in place of the button that asked for it (no dialog): the question, the action and Cancel. Escape
// or Cancel puts the button back and the focus on it; the action runs with the buttons busy, and what it returns
// decides what happens next.
import { h } from '../common/dom.js';

/**
 * @typedef {{ question: string, action: string, danger?: boolean,
 *   run: () => Promise<'done' | 'keep' | { question: string, action: string, run: ConfirmSpec['run'] }> }} ConfirmSpec
 * `run` answers 'done' (the caller has re-rendered; nothing to restore), 'keep' (show the button again, e.g.
 * after an error shown elsewhere) or another question to ask in the same place (a second, stronger warning).
 */

/**
 * Where a confirmation goes: it places `group` and returns how to take it away again. By default the group takes
 * the place of the trigger's parent's contents (the trigger among them) until it is answered.
 * @typedef {(group: HTMLElement) => () => void} Mount
 */

/** @param {HTMLButtonElement} trigger @returns {Mount} */
const inPlaceOf = (trigger) => (group) => {
  const holder = /** @type {HTMLElement} */ (trigger.parentElement);
  const before = [...holder.childNodes];
  holder.replaceChildren(group);
  return () => holder.replaceChildren(...before);
};

/**
 * Asks `spec`'s question in place of `trigger` (or where `mount` puts it) until it is answered.
 * @param {HTMLButtonElement} trigger
 * @param {ConfirmSpec} spec
 * @param {Mount} [mount]
 */
export function confirmInPlace(trigger, spec, mount = inPlaceOf(trigger)) {
  /** @type {() => void} */
  let unmount = () => {};

  function restore() {
    unmount();
    trigger.focus();
  }

  /** @param {ConfirmSpec} s */
  function ask(s) {
    const yes = h(
      'button',
      {
        type: 'button',
        class: `btn ${s.danger === false ? 'btn-primary' : 'btn-danger'} btn-small`,
        'data-confirm': '',
      },
      s.action,
    );
    const no = h('button', { type: 'button', class: 'btn btn-quiet btn-small', 'data-cancel': '' }, 'Cancel');
    const group = h(
      'div',
      { class: 'confirm', role: 'group', 'aria-label': s.question },
      h('p', { class: 'confirm-question' }, s.question),
      h('div', { class: 'confirm-actions' }, yes, no),
    );
    group.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        restore();
      }
    });
    no.addEventListener('click', restore);
    yes.addEventListener('click', async () => {
      yes.disabled = true;
      no.disabled = true;
      group.setAttribute('aria-busy', 'true');
      let next;
      try {
        next = await s.run();
      } catch (err) {
        restore(); // an unexpected failure still gives the button back, and shows as a page error
        throw err;
      }
      if (next === 'done') return;
      if (next === 'keep') return restore();
      unmount();
      ask({ danger: s.danger, ...next });
    });
    unmount = mount(group);
    yes.focus();
  }

  ask(spec);
}
