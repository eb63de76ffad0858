// The fields a reviewer may correct before approving (issue 11): the main ones of each kind. Each is prefilled
// from the proposal; only the fields changed are sent as `edits`, in the body's own units (pence, YYYY-MM-DD).
import { h } from '../common/dom.js';
import { formatMoney, isoToUkDate, parsePounds, parseUkDate, penceToPounds } from './format.js';

/** @typedef {import('./types.js').ProposalKind} ProposalKind */

/**
 * @typedef {{ name: string, label: string, type: 'text' | 'money' | 'date', required?: boolean, max?: number,
 *   hint?: string }} EditField
 */

const MAX_PENCE = 2_147_483_647;

/** @type {Record<ProposalKind, EditField[]>} */
export const EDIT_FIELDS = {
  deal: [
    { name: 'title', label: 'Deal title', type: 'text', required: true, max: 200 },
    { name: 'value_pence', label: 'Value', type: 'money' },
    {
      name: 'stage',
      label: 'Stage',
      type: 'text',
      max: 100,
      hint: 'For example appraisal, marketing, offer',
    },
    { name: 'expected_close_date', label: 'Expected close date', type: 'date' },
  ],
  compliance_update: [
    { name: 'issue_date', label: 'Issue date', type: 'date', required: true },
    { name: 'expiry_date', label: 'Expiry date', type: 'date' },
    { name: 'reference_number', label: 'Certificate reference', type: 'text', max: 100 },
  ],
  financial_log: [
    { name: 'date', label: 'Date', type: 'date', required: true },
    { name: 'net_pence', label: 'Net amount', type: 'money', required: true },
    { name: 'vat_pence', label: 'VAT', type: 'money', required: true },
    { name: 'payee_or_payer', label: 'Payee or payer', type: 'text', max: 200 },
  ],
};

/** @param {string} name */
export const inputId = (name) => `edit-${name.replace(/_/g, '-')}`;
/** @param {string} id */
export const errorId = (id) => `${id}-error`;

/**
 * The inputs of one kind, prefilled from the payload. A date the proposal left to the platform (a compliance
 * update's expiry date) stays empty, and its hint says what approval would write, from the diff.
 * @param {ProposalKind} kind
 * @param {Record<string, unknown>} payload
 * @param {import('./types.js').DiffEntry[]} diff
 */
export function renderEditFields(kind, payload, diff) {
  return EDIT_FIELDS[kind].map((f) => {
    const id = inputId(f.name);
    const current = payload[f.name];
    const fallback = diff.find((d) => d.path === f.name)?.to;
    const hint =
      f.type !== 'date'
        ? f.hint
        : current === undefined && typeof fallback === 'string'
          ? `Day/month/year. Left empty, it follows from the issue date: ${isoToUkDate(fallback)}.`
          : 'Day/month/year';
    const hintId = hint ? `${id}-hint` : undefined;
    const input = h('input', {
      id,
      name: f.name,
      // Dates as UK text (day/month/year) rather than <input type=date>, whose format follows the browser's
      // language: an office browser set to US English would show 01/17/2027.
      type: 'text',
      autocomplete: 'off',
      required: f.required,
      maxlength: f.max ? String(f.max) : undefined,
      inputmode: f.type === 'money' ? 'decimal' : undefined,
      'aria-describedby': [hintId, errorId(id)].filter(Boolean).join(' '),
    });
    if (f.type === 'money') input.value = typeof current === 'number' ? penceToPounds(current) : '';
    else if (f.type === 'date') input.value = typeof current === 'string' ? isoToUkDate(current) : '';
    else input.value = typeof current === 'string' ? current : '';
    const control =
      f.type === 'money'
        ? h('div', { class: 'money' }, h('span', { class: 'money-sign' }, '£'), input)
        : input;
    return h(
      'div',
      { class: `field field-${f.type}` },
      h('label', { for: id }, f.label, f.required ? null : h('span', { class: 'optional' }, ' (optional)')),
      control,
      hint ? h('p', { class: 'hint', id: hintId }, hint) : null,
      h('p', { class: 'field-error', id: errorId(id), hidden: true }),
    );
  });
}

/**
 * What the reviewer changed, as `edits`, or the fields' errors in words.
 * @param {ProposalKind} kind
 * @param {Record<string, unknown>} payload
 * @param {HTMLFormElement} form
 * @returns {{ edits: Record<string, unknown>, errors: Record<string, string> }}
 */
export function readEdits(kind, payload, form) {
  /** @type {Record<string, unknown>} */
  const edits = {};
  /** @type {Record<string, string>} */
  const errors = {};
  for (const f of EDIT_FIELDS[kind]) {
    const input = /** @type {HTMLInputElement} */ (form.elements.namedItem(f.name));
    const typed = input.value.trim();
    const before = payload[f.name];
    if (typed === '') {
      if (f.required) errors[f.name] = `Enter the ${f.label.toLowerCase()}.`;
      else if (before !== undefined && before !== null) {
        errors[f.name] =
          'This can’t be left empty once proposed. Put the value back, or reject the proposal.';
      }
      continue;
    }
    if (f.type === 'money') {
      const pence = parsePounds(typed);
      if (pence === null) errors[f.name] = 'Enter an amount in pounds, like 1,395.00.';
      else if (pence > MAX_PENCE) errors[f.name] = `Enter at most ${formatMoney(MAX_PENCE)}.`;
      else if (pence !== before) edits[f.name] = pence;
      continue;
    }
    if (f.type === 'date') {
      const iso = parseUkDate(typed);
      if (!iso) errors[f.name] = 'Enter a real date as day/month/year, like 17/01/2027.';
      else if (iso !== before) edits[f.name] = iso;
      continue;
    }
    if (typed !== before) edits[f.name] = typed;
  }
  return { edits, errors };
}
