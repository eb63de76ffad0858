// The pairing screen (docs/access.md): shown instead of the chat while a gateway that asks for device tokens has no
// session for this browser — at start, or when any call answers 401 (a revoked device). The code is forgiving of
// spaces, dashes and lower case (the server normalises it); on success the server sets the HttpOnly session
// cookie and the page starts again, as a paired device.
import { ApiError } from './chat-api.js';
import { redeemPairingCode } from './access-api.js';

/** The name offered for this device, from what the browser says it runs on. */
export function suggestedDeviceName(userAgent = navigator.userAgent) {
  const os = /iPhone/.test(userAgent)
    ? 'iPhone'
    : /iPad/.test(userAgent)
      ? 'iPad'
      : /Android/.test(userAgent)
        ? 'Android phone'
        : /Mac OS X/.test(userAgent)
          ? 'Mac'
          : /Windows/.test(userAgent)
            ? 'Windows PC'
            : /Linux/.test(userAgent)
              ? 'Linux computer'
              : 'this device';
  const browser = /Edg\//.test(userAgent)
    ? 'Edge'
    : /Firefox\//.test(userAgent)
      ? 'Firefox'
      : /Chrome\//.test(userAgent)
        ? 'Chrome'
        : /Safari\//.test(userAgent)
          ? 'Safari'
          : '';
  return browser ? `${browser} on ${os}` : os;
}

/** @param {unknown} err */
function pairingErrorText(err) {
  if (err instanceof ApiError) {
    if (err.code === 'pairing-code-invalid') {
      return 'That code is not valid. It may be mistyped, already used or more than 10 minutes old: ask for a new one.';
    }
    if (err.code === 'rate-limited') {
      const wait = err.retryAfter ? ` in ${Math.ceil(err.retryAfter / 60)} min` : ' later';
      return `Too many wrong codes from this network. Try again${wait}.`;
    }
    if (err.code === 'validation-failed') return 'Enter the code and a name for this device.';
    return err.message;
  }
  return 'Pairing failed. Try again.';
}

/**
 * @param {{ screen: HTMLElement, app: HTMLElement, onPaired?: () => void }} els
 */
export function createPairingScreen({ screen, app, onPaired = () => location.reload() }) {
  const form = /** @type {HTMLFormElement} */ (screen.querySelector('#pairing-form'));
  const code = /** @type {HTMLInputElement} */ (screen.querySelector('#pairing-code'));
  const name = /** @type {HTMLInputElement} */ (screen.querySelector('#device-name'));
  const error = /** @type {HTMLElement} */ (screen.querySelector('#pairing-error'));
  const submit = /** @type {HTMLButtonElement} */ (screen.querySelector('#pairing-submit'));
  const lead = /** @type {HTMLElement} */ (screen.querySelector('#pairing-lead'));
  let shown = false;

  /** @param {string} text */
  function showError(text) {
    error.textContent = text;
    error.hidden = false;
    code.setAttribute('aria-invalid', 'true');
  }

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const value = code.value.trim();
    const device = name.value.trim();
    if (!value || !device) {
      showError(!value ? 'Enter the pairing code you were given.' : 'Give this device a name.');
      (!value ? code : name).focus();
      return;
    }
    submit.disabled = true;
    submit.textContent = 'Pairing…';
    try {
      await redeemPairingCode(value, device);
      onPaired();
    } catch (err) {
      showError(pairingErrorText(err));
      code.select();
      code.focus();
    } finally {
      submit.disabled = false;
      submit.textContent = 'Pair this device';
    }
  });
  code.addEventListener('input', () => {
    error.hidden = true;
    code.removeAttribute('aria-invalid');
  });

  return {
    /** @param {{ revoked?: boolean }} [options] */
    show({ revoked = false } = {}) {
      if (revoked) {
        lead.textContent =
          'This device is no longer paired with Porter (it may have been removed in the settings). Ask for a new pairing code to go on.';
      }
      if (shown) return;
      shown = true;
      document.body.dataset.state = 'pairing';
      app.hidden = true;
      screen.hidden = false;
      if (!name.value) name.value = suggestedDeviceName();
      code.focus();
    },
    get shown() {
      return shown;
    },
  };
}
