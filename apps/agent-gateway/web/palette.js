// The command palette: a listbox under the control of the message box (ARIA combobox pattern with list
// autocomplete). It opens when the text is a command word (`/`, `/pr`...), ArrowUp/ArrowDown move the active
// option, Enter (or a click) fills the box with the command, Escape closes it.
import { matchCommands } from './commands.js';

/** @typedef {import('./commands.js').Command} Command */

/**
 * @param {{ input: HTMLTextAreaElement, list: HTMLUListElement, onPick?: (command: object) => void }} opts
 */
export function createPalette({ input, list, onPick }) {
  /** @type {Command[]} */
  let items = [];
  let active = -1;
  /** @type {string | null} */
  let dismissedFor = null; // the text the user closed the palette on, so typing on reopens it

  function isOpen() {
    return !list.hidden;
  }

  function render() {
    list.replaceChildren(
      ...items.map((cmd, i) => {
        const li = document.createElement('li');
        li.id = `command-option-${cmd.name.slice(1)}`;
        li.className = 'palette-option';
        li.setAttribute('role', 'option');
        li.setAttribute('aria-selected', String(i === active));
        li.dataset.command = cmd.name;
        const name = document.createElement('span');
        name.className = 'palette-name';
        name.textContent = cmd.usage;
        const desc = document.createElement('span');
        desc.className = 'palette-description';
        desc.textContent = cmd.description;
        li.append(name, desc);
        li.addEventListener('mousedown', (e) => e.preventDefault()); // keep focus in the input
        li.addEventListener('click', () => pick(i));
        return li;
      }),
    );
    if (active >= 0 && items[active]) {
      const id = `command-option-${items[active].name.slice(1)}`;
      input.setAttribute('aria-activedescendant', id);
      document.getElementById(id)?.scrollIntoView({ block: 'nearest' });
    } else {
      input.removeAttribute('aria-activedescendant');
    }
  }

  /** @param {Command[]} matches */
  function open(matches) {
    const previous = active >= 0 ? items[active]?.name : null;
    items = matches;
    active = previous ? items.findIndex((c) => c.name === previous) : -1;
    list.hidden = false;
    input.setAttribute('aria-expanded', 'true');
    render();
  }

  function close() {
    items = [];
    active = -1;
    list.hidden = true;
    list.replaceChildren();
    input.setAttribute('aria-expanded', 'false');
    input.removeAttribute('aria-activedescendant');
  }

  /** @param {number} index */
  function pick(index) {
    const cmd = items[index];
    if (!cmd) return;
    // A command that takes an argument gets a space so the name can be typed straight away.
    input.value = cmd.name === '/provider' ? `${cmd.name} ` : cmd.name;
    dismissedFor = input.value;
    close();
    input.focus();
    input.setSelectionRange(input.value.length, input.value.length);
    input.dispatchEvent(new Event('palette-pick'));
    onPick?.(cmd);
  }

  function update() {
    const text = input.value;
    if (text === dismissedFor) return close();
    dismissedFor = null;
    const matches = matchCommands(text);
    if (matches.length > 0) open(matches);
    else close();
  }

  /** @param {number} step */
  function move(step) {
    if (items.length === 0) return;
    active = active < 0 ? (step > 0 ? 0 : items.length - 1) : (active + step + items.length) % items.length;
    render();
  }

  /**
   * Handles a keydown on the input; returns true when the palette consumed it.
   * @param {KeyboardEvent} e
   */
  function handleKey(e) {
    if (!isOpen()) {
      if (e.key === 'ArrowDown' && e.altKey === false && matchCommands(input.value).length > 0) {
        dismissedFor = null;
        open(matchCommands(input.value));
        move(1);
        return true;
      }
      return false;
    }
    switch (e.key) {
      case 'ArrowDown':
        move(1);
        return true;
      case 'ArrowUp':
        move(-1);
        return true;
      case 'Home':
      case 'End':
        if (e.ctrlKey) {
          active = e.key === 'Home' ? 0 : items.length - 1;
          render();
          return true;
        }
        return false;
      case 'Enter':
        if (e.shiftKey || active < 0) return false;
        pick(active);
        return true;
      case 'Tab':
        if (active >= 0 && !e.shiftKey) {
          pick(active);
          return true;
        }
        return false;
      case 'Escape':
        dismissedFor = input.value;
        close();
        return true;
      default:
        return false;
    }
  }

  input.addEventListener('input', update);
  input.addEventListener('blur', () => close());
  close();

  return { handleKey, close, isOpen, update };
}
