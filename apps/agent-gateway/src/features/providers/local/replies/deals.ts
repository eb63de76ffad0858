import type { Deal } from '@pa/contracts';
import { daysBetween } from '../../../briefing/dates.ts';
import { capitalise, dueWords, formatDate, money, words } from '../format.ts';
import type { Intent } from '../intent.ts';
import { askNext, blocks, table } from '../markdown.ts';
import type { PlatformReader } from '../platform-reader.ts';
import { normalise } from '../property-match.ts';
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
    d.next_action_due
      ? `${formatDate(d.next_action_due)} (${dueWords(daysBetween(today, d.next_action_due))})`
      : '',
  ];
}

const HEADERS = ['Deal', 'Property', 'Value', 'Stage', 'Next action', 'Due'];

/** The deals a question names by a phrase of their title ("the Chesterton Road refinance"); empty when none. */
export function dealsNamed(text: string, deals: Deal[]): Deal[] {
  const said = normalise(text).trim().split(' ');
  const pairs: string[] = [];
  for (let i = 0; i + 1 < said.length; i++) {
    const pair = `${said[i]} ${said[i + 1]}`;
    if (!DEAL_WORDS.has(said[i]!) && !DEAL_WORDS.has(said[i + 1]!)) pairs.push(` ${pair} `);
  }
  return deals.filter((d) => pairs.some((p) => normalise(d.title).includes(p)));
}

const DEAL_WORDS = new Set(
  'the a an my our with on at of for in to is what whats s happening deal deals refinance acquisition disposal let new management instruction status next action actions'.split(
    ' ',
  ),
);

export async function dealsReply(reader: PlatformReader, intent: DealsIntent, text = ''): Promise<string> {
  const view = await reader.portfolio();
  const { deals, incomplete } = await reader.deals(intent.status);
  const today = view.today;
  const refs = new Map(view.properties.map((p) => [p.id, p.ref]));
  const label = intent.closed ? 'closed deals' : intent.status === 'all' ? 'deals' : `${intent.status} deals`;
  const notes = incomplete ? ['Note: only part of the deal list could be read.'] : [];
  const due = (d: Deal) => (d.next_action_due ? daysBetween(today, d.next_action_due) : null);
  const sorted = [...deals].sort((a, b) => (due(a) ?? 99_999) - (due(b) ?? 99_999) || a.id - b.id);
  const next = askNext(['Which emails need a reply?', 'Give me my daily briefing']);

  if (deals.length === 0)
    return blocks(`There are **no ${label}** on the platform.`, asOf(view, notes), next);
  const named = dealsNamed(text, deals);
  if (named.length > 0 && named.length < deals.length)
    return blocks(
      named.length === 1 ? `### ${named[0]!.title}` : `### ${named.length} matching deals`,
      table(
        HEADERS,
        named.map((d) => row(d, today, refs)),
      ),
      asOf(view, notes),
      askNext(['What deals are open?', 'Which deal actions are overdue?']),
    );

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
      list.length
        ? table(
            HEADERS,
            list.map((d) => row(d, today, refs)),
          )
        : null,
      asOf(view, notes),
      next,
    );
  }

  if (intent.closed) {
    const closed = sorted.filter((d) => d.status !== 'open');
    return blocks(
      closed.length ? `### Deals won or lost: ${closed.length}` : '**No deal has been won or lost yet.**',
      closed.length
        ? table(
            HEADERS,
            closed.map((d) => row(d, today, refs)),
          )
        : null,
      asOf(view, notes),
      next,
    );
  }
  const value = deals.reduce((sum, d) => sum + (d.value_pence ?? 0), 0);
  const groups: [string, Deal[]][] = [
    ['Overdue', sorted.filter((d) => d.status === 'open' && (due(d) ?? 0) < 0)],
    [
      'Due in the next 7 days',
      sorted.filter((d) => d.status === 'open' && due(d) !== null && due(d)! >= 0 && due(d)! <= 7),
    ],
    ['Later', sorted.filter((d) => d.status === 'open' && due(d) !== null && due(d)! > 7)],
    ['No next action set', sorted.filter((d) => d.status === 'open' && due(d) === null)],
    ['Closed', sorted.filter((d) => d.status !== 'open')],
  ];
  const parts: (string | null)[] = [
    `### ${capitalise(label)}: ${deals.length}${value ? ` (total value ${money(value)})` : ''}`,
  ];
  for (const [title, list] of groups)
    if (list.length)
      parts.push(
        `**${title} (${list.length})**`,
        table(
          HEADERS,
          list.map((d) => row(d, today, refs)),
        ),
      );
  parts.push(asOf(view, notes), next);
  return blocks(...parts);
}
