// The approve and reject dialogs: native <dialog> (modal, so focus stays inside and Escape closes it), a form
// whose Enter submits, errors next to their fields, and the focus handed back to where the reviewer was.
import { ApiError } from './api.js';
import { errorId, inputId, readEdits, renderEditFields } from './edit-fields.js';
import { asSentence, fieldLabel, KIND_LABELS, summaryText } from './format.js';
import { problemMessage } from './messages.js';

/** @typedef {import('./types.js').ReviewItem} ReviewItem */

/**
 * @param {string} id
 * @returns {HTMLElement}
 */
function byId(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing`);
  return el;
}

/**
 * @param {HTMLInputElement} input
 * @param {string | null} message
 */
function setFieldError(input, message) {
  const p = document.getElementById(errorId(input.id));
  if (message) input.setAttribute('aria-invalid', 'true');
  else input.removeAttribute('aria-invalid');
  if (p) {
    p.textContent = message ?? '';
    p.hidden = !message;
  }
}

/**
 * @param {HTMLElement} p
 * @param {string | null} message
 */
function setFormError(p, message) {
  p.textContent = message ?? '';
  p.hidden = !message;
}

/**
 * One modal form: open it for a proposal, submit it once at a time, close it on success or Escape.
 * @param {{ dialog: HTMLDialogElement, form: HTMLFormElement, submit: HTMLButtonElement,
 *   formError: HTMLElement, busyLabel: string }} parts
 */
function modalForm(parts) {
  const { dialog, form, submit, formError } = parts;
  const idleLabel = submit.textContent ?? '';
  /** @type {HTMLElement | null} */
  let returnTo = null;
  let busy = false;

  form.querySelectorAll('[data-close]').forEach((b) => b.addEventListener('click', () => dialog.close()));
  dialog.addEventListener('close', () => {
    // The trigger may be gone (the card was decided meanwhile): then the caller said where focus goes.
    if (returnTo?.isConnected) returnTo.focus();
    returnTo = null;
  });

  return {
    /** @param {HTMLElement} trigger */
    open(trigger) {
      returnTo = trigger;
      setFormError(formError, null);
      form.querySelectorAll('input').forEach((i) => setFieldError(i, null));
      dialog.showModal();
    },
    /** @param {HTMLElement} el where focus goes when the dialog closes */
    returnFocusTo(el) {
      returnTo = el;
    },
    /** @param {string | null} message */
    formError: (/** @type {string | null} */ message) => setFormError(formError, message),
    /**
     * Runs `work` with the submit button busy; one at a time.
     * @param {() => Promise<void>} work
     */
    async busy(work) {
      if (busy) return;
      busy = true;
      submit.disabled = true;
      submit.textContent = parts.busyLabel;
      try {
        await work();
      } finally {
        busy = false;
        submit.disabled = false;
        submit.textContent = idleLabel;
      }
    },
    close: () => dialog.close(),
  };
}

/**
 * Shows the API's field errors next to their inputs (`#/edits/value_pence` → the Value field, `#/note`,
 * `#/reason`); any it cannot place go in the form's error line.
 * @param {ApiError} err
 * @param {HTMLFormElement} form
 * @param {Record<string, string>} inputOfPointer
 * @returns {string[]} the errors that had no field
 */
function placeFieldErrors(err, form, inputOfPointer) {
  /** @type {string[]} */
  const unplaced = [];
  let focused = false;
  for (const e of err.fields) {
    const id = inputOfPointer[e.pointer];
    const input = id ? /** @type {HTMLInputElement | null} */ (form.querySelector(`#${id}`)) : null;
    if (input) {
      setFieldError(input, asSentence(e.detail));
      if (!focused) input.focus();
      focused = true;
    } else {
      const path = e.pointer.replace(/^#\/(edits\/)?/, '');
      unplaced.push(`${fieldLabel(path)}: ${e.detail}`);
    }
  }
  return unplaced;
}

const INTRO = {
  deal: 'Approving adds this deal to the pipeline.',
  compliance_update: 'Approving updates the property’s compliance record of this type, or creates it.',
  financial_log: 'Approving adds this line to the property’s financial log.',
};

/**
 * The approve dialog. `approve` resolves with the element to focus once the dialog closes (the card's decision),
 * or null to hand focus back to the Approve button; an ApiError it throws is shown in the dialog, next to the
 * fields it names.
 * @param {(item: ReviewItem, body: { note?: string, edits?: Record<string, unknown> }) => Promise<HTMLElement | null>} approve
 */
export function createApproveDialog(approve) {
  const form = /** @type {HTMLFormElement} */ (byId('approve-form'));
  const fields = byId('approve-fields');
  const note = /** @type {HTMLInputElement} */ (byId('approve-note'));
  const modal = modalForm({
    dialog: /** @type {HTMLDialogElement} */ (byId('approve-dialog')),
    form,
    submit: /** @type {HTMLButtonElement} */ (byId('approve-submit')),
    formError: byId('approve-error'),
    busyLabel: 'Approving…',
  });
  /** @type {ReviewItem | null} */
  let current = null;

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const item = current;
    if (!item) return;
    void modal.busy(async () => {
      modal.formError(null);
      form.querySelectorAll('input').forEach((i) => setFieldError(i, null));
      const { edits, errors } = readEdits(item.kind, item.payload, form);
      const bad = Object.entries(errors);
      for (const [name, message] of bad) {
        setFieldError(/** @type {HTMLInputElement} */ (byId(inputId(name))), message);
      }
      if (bad.length) {
        byId(inputId(bad[0]?.[0] ?? '')).focus();
        return;
      }
      const text = note.value.trim();
      try {
        const focusAfter = await approve(item, {
          ...(text ? { note: text } : {}),
          ...(Object.keys(edits).length ? { edits } : {}),
        });
        if (focusAfter) modal.returnFocusTo(focusAfter);
        modal.close();
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        /** @type {Record<string, string>} */
        const pointers = { '#/note': note.id };
        for (const name of Object.keys(item.payload)) pointers[`#/edits/${name}`] = inputId(name);
        const unplaced = placeFieldErrors(err, form, pointers);
        modal.formError(
          err.code === 'validation-failed' && !unplaced.length
            ? null
            : [problemMessage(err), ...unplaced].join(' '),
        );
      }
    });
  });

  return {
    /**
     * @param {ReviewItem} item
     * @param {HTMLElement} trigger
     */
    open(item, trigger) {
      current = item;
      byId('approve-summary').textContent = summaryText(item.summary);
      byId('approve-intro').textContent = INTRO[item.kind];
      const kind = byId('approve-kind');
      kind.textContent = KIND_LABELS[item.kind];
      kind.className = `badge kind kind-${item.kind}`;
      fields.replaceChildren(...renderEditFields(item.kind, item.payload, item.diff));
      note.value = '';
      modal.open(trigger);
    },
  };
}

/**
 * The reject dialog: a reason is required. `reject` behaves as the approve dialog's `approve`.
 * @param {(item: ReviewItem, reason: string) => Promise<HTMLElement | null>} reject
 */
export function createRejectDialog(reject) {
  const form = /** @type {HTMLFormElement} */ (byId('reject-form'));
  const reason = /** @type {HTMLInputElement} */ (byId('reject-reason'));
  const modal = modalForm({
    dialog: /** @type {HTMLDialogElement} */ (byId('reject-dialog')),
    form,
    submit: /** @type {HTMLButtonElement} */ (byId('reject-submit')),
    formError: byId('reject-error'),
    busyLabel: 'Rejecting…',
  });
  /** @type {ReviewItem | null} */
  let current = null;

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const item = current;
    if (!item) return;
    void modal.busy(async () => {
      modal.formError(null);
      setFieldError(reason, null);
      const text = reason.value.trim();
      if (!text) {
        setFieldError(reason, 'Say why, so the assistant can learn from it.');
        reason.focus();
        return;
      }
      try {
        const focusAfter = await reject(item, text);
        if (focusAfter) modal.returnFocusTo(focusAfter);
        modal.close();
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        const unplaced = placeFieldErrors(err, form, { '#/reason': reason.id });
        modal.formError(
          err.code === 'validation-failed' && !unplaced.length
            ? null
            : [problemMessage(err), ...unplaced].join(' '),
        );
      }
    });
  });

  return {
    /**
     * @param {ReviewItem} item
     * @param {HTMLElement} trigger
     */
    open(item, trigger) {
      current = item;
      byId('reject-summary').textContent = summaryText(item.summary);
      reason.value = '';
      modal.open(trigger);
    },
  };
}
