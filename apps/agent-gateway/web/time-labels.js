// When a conversation was last active, as the history list says it: "14:05" today, "Yesterday", "23 Nov, 14:05"
// this year, "23 Nov 2025" before. Always UK forms, whatever the browser's language.

const time = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
const dayMonth = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short' });
const full = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric' });

/** @param {Date} d */
const startOfDay = (d) => new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();

/**
 * @param {string} iso
 * @param {Date} [now]
 */
export function lastActiveLabel(iso, now = new Date()) {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return '';
  const days = Math.round((startOfDay(now) - startOfDay(at)) / 86_400_000);
  if (days <= 0) return time.format(at);
  if (days === 1) return 'Yesterday';
  if (at.getFullYear() === now.getFullYear()) return `${dayMonth.format(at)}, ${time.format(at)}`;
  return full.format(at);
}

/**
 * The group a conversation is listed under, by the calendar day it was last active: "Today", "Yesterday",
 * "Previous 7 days" (2 to 7 days ago), else "Earlier".
 * @param {string} iso
 * @param {Date} [now]
 */
export function dateGroup(iso, now = new Date()) {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return 'Earlier';
  const days = Math.round((startOfDay(now) - startOfDay(at)) / 86_400_000);
  if (days <= 0) return 'Today';
  if (days === 1) return 'Yesterday';
  if (days <= 7) return 'Previous 7 days';
  return 'Earlier';
}

/** The groups in the order the list shows them. */
export const DATE_GROUPS = ['Today', 'Yesterday', 'Previous 7 days', 'Earlier'];
