// What every settings page says about a failed call whatever it was for: no answer, a refused key, too many
// requests, a failure on the platform. Each page's problemMessage says its own codes first, then falls back here.

/** @typedef {import('./api.js').ApiError} ApiError */

export const KEY_REFUSED = 'That admin key was not accepted. Check it and paste it again.';
export const NETWORK_DOWN = 'Could not reach the platform. Check your connection and try again.';

/**
 * The sentence for a failure no page has words of its own for.
 * @param {ApiError} err
 */
export function commonProblemMessage(err) {
  switch (err.code) {
    case 'network':
      return NETWORK_DOWN;
    case 'invalid-api-key':
      return KEY_REFUSED;
    case 'rate-limited':
      return `Too many requests just now. Try again in ${err.retryAfterSeconds ?? 60} seconds.`;
  }
  if (err.status >= 500) {
    const ref = err.requestId ? ` If it keeps happening, quote reference ${err.requestId}.` : '';
    return `Something went wrong on the platform. Try again in a moment.${ref}`;
  }
  return err.message || 'That did not work. Try again.';
}
