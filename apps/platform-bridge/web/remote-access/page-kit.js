// What the page's sections share: the settings pages' element look-up, status line and error paragraph
// (../common/page.js), and showing a failure in words where it happened.
import { ApiError } from './api.js';
import { problemMessage } from './messages.js';
import { showError } from '../common/page.js';

export { $, announce, showError } from '../common/page.js';

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
