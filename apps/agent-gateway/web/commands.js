// The commands typed in the message box. Parsing is pure; app.js runs them.

/** @typedef {{ name: string, usage: string, description: string }} Command */

/** @type {Command[]} */
export const COMMANDS = [
  { name: '/help', usage: '/help', description: 'List the commands' },
  { name: '/provider', usage: '/provider [name]', description: 'Show the providers, or switch to one' },
  { name: '/clear', usage: '/clear', description: 'Forget this conversation and empty the log' },
];

/** The commands whose name starts with what is typed (`/`, `/pr`...); [] when the text is not a command word. */
/** @param {string} text */
export function matchCommands(text) {
  if (!/^\/\S*$/.test(text)) return [];
  const typed = text.toLowerCase();
  return COMMANDS.filter((c) => c.name.startsWith(typed));
}

/**
 * Parses a line starting with `/`. Returns {name, args} with name lowercased (e.g. '/provider') and args the
 * remaining whitespace-separated words; null when the text is not a command.
 * @param {string} text
 */
export function parseCommand(text) {
  const trimmed = text.trim();
  if (!trimmed.startsWith('/')) return null;
  const [head, ...args] = trimmed.split(/\s+/);
  return { name: head.toLowerCase(), args };
}

/** @param {string} name */
export function isKnownCommand(name) {
  return COMMANDS.some((c) => c.name === name);
}
