// Times as both settings pages write them: "19 Oct 2026, 14:05" in UK time, and how long ago or ahead in words.

const LONDON = 'Europe/London';

const dateTime = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZone: LONDON,
});
const relative = new Intl.RelativeTimeFormat('en-GB', { numeric: 'auto' });

/**
 * A timestamp as "19 Oct 2026, 14:05" in UK time.
 * @param {string} iso
 */
export function formatDateTime(iso) {
  return dateTime.format(new Date(iso));
}

/**
 * How far `iso` lies from `now`, in the largest whole unit: "in 13 days", "5 hours ago", "yesterday".
 * @param {string} iso
 * @param {number} [now]
 */
export function fromNow(iso, now = Date.now()) {
  const seconds = (new Date(iso).getTime() - now) / 1000;
  const abs = Math.abs(seconds);
  if (abs < 60) return 'just now';
  if (abs < 3600) return relative.format(Math.trunc(seconds / 60), 'minute');
  if (abs < 86_400) return relative.format(Math.trunc(seconds / 3600), 'hour');
  return relative.format(Math.trunc(seconds / 86_400), 'day');
}
