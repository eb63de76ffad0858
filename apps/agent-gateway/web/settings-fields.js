// A labelled text field of a Settings form, as the WhatsApp and email sections build theirs: the input with its
// label and, when there is one, its hint (read out with it); a mark of a refused value goes as soon as it is edited.
import { el } from './dom.js';

/**
 * @param {string} id the input's id (its hint's is `${id}-hint`)
 * @param {string} name
 * @param {string} label
 * @param {string} hint '' for none
 * @param {Record<string, string>} attrs type, maxlength, required, …
 */
export function textField(id, name, label, hint, attrs) {
  const hintId = `${id}-hint`;
  const input = el('input', {
    id,
    name,
    class: 'field-input',
    autocomplete: 'off',
    autocapitalize: 'none',
    spellcheck: 'false',
    ...(hint ? { 'aria-describedby': hintId } : {}),
    ...attrs,
  });
  input.addEventListener('input', () => input.removeAttribute('aria-invalid'));
  const wrap = el('div', { class: 'field' }, [el('label', { for: id, text: label }), input]);
  if (hint) wrap.append(el('p', { id: hintId, class: 'field-hint', text: hint }));
  return { input, wrap };
}
