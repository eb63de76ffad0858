import type { Deal } from '@pa/contracts';
import { daysBetween } from '../../../briefing/dates.ts';
import { capitalise, dueWords, formatDate, money, words } from '../format.ts';
import type { Intent } from '../intent.ts';
import { askNext, blocks, table } from '../markdown.ts';
import type { PlatformReader } from '../platform-reader.ts';
import { windowEnd } from './compliance.ts';
import { asOf } from './shared.ts';

type DealsIntent = Extract<Intent, { kind: 'deals' }>;

function row(d: Deal, today: string, refs: Map<number, string>): string[] {
  return [
    d.title,
    d.property_id === null ? 'none' : (refs.get(d.property_id) ?? `property ${d.property_id}`),
    d.value_pence === null ? 'not set' : money(d.value_pence),
    d.status === 'open' ? words(d.stage) : `${words(d.stage)} (${d.status})`,
    d.next_action ?? 'none set',
    d.next_action_due ? `${formatDate(d.next_action_due)} (${dueWords(daysBetween(today, d.next_action_due))})` : '',
  ];
}

const HEADERS = ['Deal', 'Property', 'Value', 'Stage', 'Next action', 'Due'];

export async function dealsReply(reader: PlatformReader, intent: DealsIntent): Promise<string> {
  const view = await reader.portfolio();
  const { deals, incomplete } = await reader.deals(intent.status);
  const today = view.today;
  const refs = new Map(view.properties.map((p) => [p.id, p.ref]));
  const label = intent.status === 'all' ? 'deals' : `${intent.status} deals`;
  const notes = incomplete ? ['Note: only part of the deal list could be read.'] : [];
  const due = (d: Deal) => (d.next_action_due ? daysBetween(today, d.next_action_due) : null);
  const sorted = [...deals].sort((a, b) => (due(a) ?? 99_999) - (due(b) ?? 99_999) || a.id - b.id);
  const next = askNext(['Which emails need a reply?', 'Give me my daily briefing']);

  if (deals.length === 0) return blocks(`There are **no ${label}** on the platform.`, asOf(view, notes), next);

  if (intent.due) {
    const overdue = intent.due === 'overdue';
    const end = intent.due === 'overdue' ? null : windowEnd(intent.due, today);
    const list = sorted.filter((d) => {
      const n = due(d);
      if (d.status !== 'open' || n === null || !d.next_action) return false;
      return overdue ? n < 0 : n >= 0 && d.next_action_due! <= end!.until;
    });
    const title = overdue ? 'Deal actions overdue' : `Deal actions due ${end!.words}`;
    return blocks(
      list.length ? `### ${title}: ${list.length}` : `**No ${title.toLowerCase()}.**`,
      list.length ? table(HEADERS, list.map((d) => row(d, today, refs))) : null,
      asOf(view, notes),
      next,
    );
  }

  const value = deals.reduce((sum, d) => sum + (d.value_pence ?? 0), 0);
  const groups: [string, Deal[]][] = [
    ['Overdue', sorted.filter((d) => d.status === 'open' && (due(d) ?? 0) < 0)],
    ['Due in the next 7 days', sorted.filter((d) => d.status === 'open' && due(d) !== null && due(d)! >= 0 && due(d)! <= 7)],
    ['Later', sorted.filter((d) => d.status === 'open' && due(d) !== null && due(d)! > 7)],
    ['No next action set', sorted.filter((d) => d.status === 'open' && due(d) === null)],
    ['Closed', sorted.filter((d) => d.status !== 'open')],
  ];
  const parts: (string | null)[] = [
    `### ${capitalise(label)}: ${deals.length}${value ? ` (total value ${money(value)})` : ''}`,
  ];
  for (const [title, list] of groups)
    if (list.length) parts.push(`**${title} (${list.length})**`, table(HEADERS, list.map((d) => row(d, today, refs))));
  parts.push(asOf(view, notes), next);
  return blocks(...parts);
}

