// What the page says when a call fails: each problem code of the remote-access API in words an admin can act on.

/** @typedef {import('./api.js').ApiError} ApiError */

export const KEY_REFUSED = 'That admin key was not accepted. Check it and paste it again.';
export const NETWORK_DOWN = 'Could not reach the platform. Check your connection and try again.';

/**
 * The sentence for a failed call.
 * @param {ApiError} err
 */
export function problemMessage(err) {
  switch (err.code) {
    case 'network':
      return NETWORK_DOWN;
    case 'invalid-api-key':
      return KEY_REFUSED;
    case 'insufficient-scope':
      return 'This admin key cannot manage remote access. Ask your platform operator for a key with the access:manage scope.';
    case 'key-not-found':
      return 'That key is not in this workspace any more. Refresh the list.';
    case 'webhook-not-found':
      return 'That endpoint has been removed meanwhile. Refresh the list.';
    case 'delivery-not-found':
      return 'That delivery is no longer kept. Refresh the list.';
    case 'delivery-pending':
      return 'That event is still being sent; it can be sent again once it has arrived or failed.';
    case 'endpoint-disabled':
      return 'This endpoint was switched off by the platform, so nothing can be sent to it. Remove it and add it again.';
    case 'endpoint-exists':
      return 'That address is already an endpoint of this workspace.';
    case 'too-many-endpoints':
      return 'This workspace already has the most endpoints it may have (10). Remove one first.';
    case 'unknown-flag':
      return 'The platform does not know that switch. Reload the page.';
    case 'validation-failed':
      return err.fields[0] ? `That did not work: ${err.fields[0].detail}.` : 'Some details need fixing.';
    case 'rate-limited':
      return `Too many requests just now. Try again in ${err.retryAfterSeconds ?? 60} seconds.`;
  }
  if (err.status >= 500) {
    const ref = err.requestId ? ` If it keeps happening, quote reference ${err.requestId}.` : '';
    return `Something went wrong on the platform. Try again in a moment.${ref}`;
  }
  return err.message || 'That did not work. Try again.';
}
