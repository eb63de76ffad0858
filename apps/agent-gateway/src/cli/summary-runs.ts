import type { SummaryRun } from '@pa/contracts';
import { textTable } from '@pa/http-kit';

// `summary runs --worker ID`: a worker's daily-summary runs as a table (or one JSON object), newest first.

const WHEN = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZone: 'Europe/London',
});

/** "23 Nov 2026, 08:00" in London time, as the settings tab shows it. */
function when(iso: string): string {
  return WHEN.format(new Date(iso)).replace('Sept', 'Sep');
}

export function formatSummaryRuns(runs: SummaryRun[]): string {
  if (runs.length === 0) return '(no runs yet)';
  const rows = runs.map((r) => [
    when(r.scheduledFor),
    r.trigger === 'manual' ? 'run now' : 'scheduled',
    r.status,
    r.deliveryChannel,
    String(r.attempts),
    r.error ?? '',
  ]);
  return textTable(['when (London)', 'trigger', 'status', 'channel', 'attempts', 'error'], rows);
}
