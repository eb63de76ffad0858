// The settings tab's "Devices" section (docs/access.md), for whoever may manage devices (the admin scope, or the
// operator): the devices paired with this Porter, what each may do in plain words, when it was last used, and
// Remove (asked in place, then immediate: the device's next message shows the pairing screen). An admin can also
// create a pairing code here, to pair a phone without the command line.
import { ApiError } from './chat-api.js';
import { listDevices, revokeDevice } from './access-api.js';
import { confirmInPlace, el, formatDate } from './dom.js';
import { apiCall } from './settings-api.js';

/** @typedef {{ id: string, name: string, scopes: string[], workspaceId: string, createdAt: string, lastUsedAt: string | null, revokedAt: string | null }} Device */

const SCOPE_WORDS = /** @type {Record<string, string>} */ ({
  chat: 'chat',
  'workers:write': 'change settings',
  admin: 'manage devices',
});

/** @param {string[]} scopes */
export function scopesInWords(scopes) {
  const words = scopes.map((s) => SCOPE_WORDS[s] ?? s);
  if (words.length <= 1) return `Can ${words[0] ?? 'do nothing'}`;
  return `Can ${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

/** @param {unknown} err */
function errorText(err) {
  return err instanceof ApiError ? err.message : 'Something went wrong. Try again.';
}

/**
 * @param {{ workspaceId: string | null, currentDeviceId: string | null }} o
 */
export function createDevicesSection(o) {
  const headingId = 'devices-heading';
  const list = el('ul', { class: 'device-list', 'aria-labelledby': headingId });
  const status = el('p', { class: 'form-status', role: 'status', 'aria-live': 'polite' });
  const codeArea = el('div', { class: 'device-code', 'data-testid': 'device-code' });
  const section = el(
    'section',
    { class: 'devices-section', 'aria-labelledby': headingId, 'data-section': 'devices' },
    [
      el('h3', { id: headingId, class: 'section-heading', text: 'Devices' }),
      el('p', {
        class: 'settings-intro',
        text: 'Phones and computers paired with Porter. Remove one you no longer use or have lost: it stops working at once.',
      }),
      list,
      status,
      codeArea,
    ],
  );

  /** @param {string} text @param {'info' | 'error'} kind */
  function showStatus(text, kind) {
    status.textContent = text;
    status.dataset.kind = kind === 'info' ? 'success' : 'error';
  }

  /** @param {Device} d */
  function renderDevice(d) {
    const isThis = d.id === o.currentDeviceId;
    const name = el('span', { class: 'device-name', text: d.name });
    const head = el('div', { class: 'device-head' }, [name]);
    if (isThis) head.append(el('span', { class: 'device-this', text: 'This device' }));
    const facts = el('p', {
      class: 'device-facts',
      text: `${scopesInWords(d.scopes)} · Paired ${formatDate(d.createdAt)} · ${d.lastUsedAt ? `Last used ${formatDate(d.lastUsedAt)}` : 'Not used yet'}`,
    });
    const actions = el('div', { class: 'device-actions' });
    const remove = el('button', { type: 'button', class: 'button button-secondary', text: 'Remove' });
    remove.setAttribute('aria-label', `Remove ${d.name}`);
    remove.addEventListener('click', () => confirmRemove(d, actions, remove, isThis));
    actions.append(remove);
    return el('li', { class: 'device', 'data-device-id': d.id }, [head, facts, actions]);
  }

  /**
   * @param {Device} d
   * @param {HTMLElement} actions
   * @param {HTMLButtonElement} remove
   * @param {boolean} isThis
   */
  function confirmRemove(d, actions, remove, isThis) {
    const question = isThis
      ? `Remove ${d.name}? This is the device you are using: you will need a new pairing code to use Porter here again.`
      : `Remove ${d.name}? It stops working at once and needs a new pairing code to come back.`;
    confirmInPlace(actions, remove, question, async () => {
      try {
        await revokeDevice(d.id);
        showStatus(`${d.name} was removed.`, 'info');
        await refresh();
        return true;
      } catch (err) {
        showStatus(`Could not remove ${d.name}. ${errorText(err)}`, 'error');
        return false;
      }
    });
  }

  function renderPairNew() {
    if (!o.workspaceId) return;
    const workspaceId = o.workspaceId;
    const settingsToo = el('input', { type: 'checkbox', id: 'pair-settings-too' });
    const label = el('label', { for: 'pair-settings-too', text: 'Also allow it to change settings' });
    const create = el('button', {
      type: 'button',
      class: 'button button-primary',
      text: 'Pair a new device',
    });
    create.addEventListener('click', async () => {
      create.disabled = true;
      try {
        const scopes = settingsToo.checked ? ['chat', 'workers:write'] : ['chat'];
        const code = /** @type {{ code: string, expiresAt: string }} */ (
          await apiCall('/api/pairing/codes', { method: 'POST', body: { workspaceId, scopes } })
        );
        const shown = `${code.code.slice(0, 4)} ${code.code.slice(4)}`;
        codeArea.replaceChildren(
          el('p', { text: 'On the new device, open Porter and enter this code:' }),
          el('p', { class: 'device-code-value', text: shown }),
          el('p', {
            class: 'field-hint',
            text: `It works once, until ${formatDate(code.expiresAt)}.`,
          }),
        );
      } catch (err) {
        showStatus(`Could not create a pairing code. ${errorText(err)}`, 'error');
      } finally {
        create.disabled = false;
      }
    });
    codeArea.replaceChildren(
      el('div', { class: 'device-pair-new' }, [el('p', { class: 'choice' }, [settingsToo, label]), create]),
    );
  }

  async function refresh() {
    try {
      const { devices } = /** @type {{ devices: Device[] }} */ (await listDevices());
      const active = devices.filter((d) => !d.revokedAt);
      list.replaceChildren(...active.map(renderDevice));
      if (active.length === 0)
        list.replaceChildren(el('li', { class: 'device-none', text: 'No devices are paired yet.' }));
    } catch (err) {
      showStatus(`Could not load the devices. ${errorText(err)}`, 'error');
    }
  }

  renderPairNew();
  return { section, refresh };
}
