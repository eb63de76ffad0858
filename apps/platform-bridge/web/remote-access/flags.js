// The workspace's assistant flags as switches (role="switch", aria-checked), each with its name in words, the
// platform's sentence on what it does, and its technical name for whoever reads the operator's documentation.
// A switch changes only once the platform has answered; meanwhile it is busy.
import { h } from '../common/dom.js';
import { listFlags, setFlag } from './api.js';
import { $, announce, failIn, showError } from './page-kit.js';

/** @typedef {import('./page-kit.js').PageContext} PageContext */
/** @typedef {import('./types.js').TenantFlag} TenantFlag */
/** @typedef {import('./types.js').FlagName} FlagName */

/** @type {Record<FlagName, string>} */
export const FLAG_NAMES = {
  assistant_external_bridge: 'Assistant access',
  assistant_bridge_writes: 'Proposals from assistants',
  assistant_bridge_review_queue: 'Review queue',
  platform_event_webhooks: 'Signed events',
};

/**
 * @param {PageContext & { flagsChanged: (flags: Map<FlagName, boolean>) => void }} ctx
 */
export function createFlagsSection(ctx) {
  const list = $('flags-list');
  const error = $('flags-error');
  /** @type {Map<FlagName, boolean>} */
  const state = new Map();

  /**
   * @param {HTMLButtonElement} button
   * @param {boolean} on
   */
  function paint(button, on) {
    button.setAttribute('aria-checked', String(on));
    const words = button.querySelector('.switch-state');
    if (words) words.textContent = on ? 'On' : 'Off';
  }

  /** @param {TenantFlag} flag */
  function renderFlag(flag) {
    const nameId = `flag-${flag.name}-name`;
    const descId = `flag-${flag.name}-desc`;
    const button = h(
      'button',
      {
        type: 'button',
        role: 'switch',
        class: 'switch',
        'aria-checked': String(flag.enabled),
        'aria-labelledby': nameId,
        'aria-describedby': descId,
        'data-flag': flag.name,
      },
      h('span', { class: 'switch-track', 'aria-hidden': 'true' }, h('span', { class: 'switch-thumb' })),
      h('span', { class: 'switch-state', 'aria-hidden': 'true' }, flag.enabled ? 'On' : 'Off'),
    );
    button.addEventListener('click', async () => {
      if (button.getAttribute('aria-busy') === 'true') return;
      const key = ctx.key();
      if (!key) return ctx.keyRefused();
      const want = button.getAttribute('aria-checked') !== 'true';
      button.setAttribute('aria-busy', 'true');
      showError(error, null);
      try {
        const { flag: now } = await setFlag(key, flag.name, want);
        paint(button, now.enabled);
        state.set(flag.name, now.enabled);
        announce(`${FLAG_NAMES[flag.name]} switched ${now.enabled ? 'on' : 'off'}.`);
        ctx.flagsChanged(state);
        ctx.changed();
      } catch (err) {
        failIn(ctx, err, error);
      } finally {
        button.removeAttribute('aria-busy');
      }
    });
    return h(
      'li',
      { class: 'switch-item', 'data-flag': flag.name },
      h(
        'div',
        { class: 'switch-text' },
        h('p', { class: 'switch-name', id: nameId }, FLAG_NAMES[flag.name] ?? flag.name),
        h('p', { class: 'switch-desc', id: descId }, flag.description),
        h('code', { class: 'switch-code' }, flag.name),
      ),
      button,
    );
  }

  async function load() {
    const key = ctx.key();
    if (!key) return;
    try {
      const { flags } = await listFlags(key);
      showError(error, null);
      state.clear();
      for (const f of flags) state.set(f.name, f.enabled);
      list.replaceChildren(...flags.map(renderFlag));
      ctx.flagsChanged(state);
    } catch (err) {
      failIn(ctx, err, error);
    }
  }

  return {
    load,
    reset() {
      list.replaceChildren();
      showError(error, null);
    },
  };
}
