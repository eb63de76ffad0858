// What the page says when a call fails: each problem code of the remote-access API in words an admin can act on
// (what every settings page says alike is in ../common/messages.js).
import { commonProblemMessage } from '../common/messages.js';

/** @typedef {import('./api.js').ApiError} ApiError */

/**
 * The sentence for a failed call.
 * @param {ApiError} err
 */
export function problemMessage(err) {
  switch (err.code) {
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
  }
  return commonProblemMessage(err);
}
