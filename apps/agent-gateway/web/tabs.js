// Tabs (ARIA tabs pattern with automatic activation: the arrow keys move and select). Selecting a tab fires
// `tab-change` on the tablist; app.js loads the Settings tab (#settings-root) then.

/** @param {HTMLElement} tablist */
export function setupTabs(tablist) {
  const tabs = /** @type {HTMLElement[]} */ ([...tablist.querySelectorAll('[role="tab"]')]);

  /**
   * @param {HTMLElement} tab
   * @param {boolean} [focus]
   */
  function select(tab, focus = true) {
    for (const t of tabs) {
      const selected = t === tab;
      t.setAttribute('aria-selected', String(selected));
      t.tabIndex = selected ? 0 : -1;
      const panel = document.getElementById(t.getAttribute('aria-controls') ?? '');
      if (panel) panel.hidden = !selected;
    }
    if (focus) tab.focus();
    tablist.dispatchEvent(new CustomEvent('tab-change', { detail: { id: tab.id } }));
  }

  for (const tab of tabs) {
    tab.addEventListener('click', () => select(tab));
    tab.addEventListener('keydown', (e) => {
      const i = tabs.indexOf(tab);
      let next = null;
      if (e.key === 'ArrowRight') next = tabs[(i + 1) % tabs.length];
      else if (e.key === 'ArrowLeft') next = tabs[(i - 1 + tabs.length) % tabs.length];
      else if (e.key === 'Home') next = tabs[0];
      else if (e.key === 'End') next = tabs[tabs.length - 1];
      if (next) {
        e.preventDefault();
        select(next);
      }
    });
  }

  return {
    /**
     * @param {string} id
     * @param {boolean} [focus]
     */
    select: (id, focus) => select(tabs.find((t) => t.id === id) ?? tabs[0], focus),
  };
}
