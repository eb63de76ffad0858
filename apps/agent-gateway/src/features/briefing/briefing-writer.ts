import { ATTENTION_GROUPS, type AttentionLine, byRank } from './attention.ts';
import type { BriefingFacts } from './briefing-facts.ts';
import { BRIEFING_WINDOWS } from './briefing-facts.ts';
import { money, percent, plural, truncate, formatDate } from './uk-format.ts';

export const BRIEFING_MAX_CHARS = 4000;

/** Where the reader sees every line a briefing had no room for. */
export const BRIEFING_MORE = `What needs my attention in the next ${BRIEFING_WINDOWS.complianceDays} days?`;

/**
 * The order lines are cut in when the briefing is too long, first cut first: what falls due later before
 * what is already wrong, mail and deals before money, and never a gas, electrical or alarm item while any
 * other line is left.
 */
function cutClass(l: AttentionLine): number {
  if (l.safety) return 9;
  if (l.group === 'copies') return 8;
  if (l.group === 'rent-reviews') return 0;
  if (l.finding?.status === 'expiring' && l.group !== 'deposits') return 0;
  if (l.group === 'emails') return 1;
  if (l.group === 'deals') return l.rank[1]! < 0 ? 5 : 2;
  if (l.group === 'compliance') return 3;
  if (l.group === 'arrears') return 4;
  if (l.group === 'tenancies') return 6;
  return 7; // deposits: a deadline with a penalty of up to three times the deposit
}

/** Lines in the order they are cut: the least urgent first. */
function cutOrder(lines: AttentionLine[]): AttentionLine[] {
  return [...lines].sort((a, b) => cutClass(a) - cutClass(b) || byRank(b, a));
}

interface Detail {
  /** add why each line matters: to every line, to safety lines only, or to none */
  why: 'all' | 'safety' | 'none';
  /** characters of a deal's or an email's text */
  note: number;
}

function lineText(l: AttentionLine, d: Detail): string {
  const ref = l.ref ? `**${l.ref}** ` : '';
  // only what others wrote (a deal's title and next action, an email's subject and sender) is shortened
  const free = l.group === 'deals' || l.group === 'emails';
  const body = l.finding
    ? `${l.item}: ${l.state}`
    : l.group === 'arrears'
      ? l.state
      : free
        ? `${truncate(l.item, d.note)}: ${truncate(l.state, d.note)}`
        : `${l.item}: ${l.state}`;
  const why = d.why === 'all' || (d.why === 'safety' && l.safety) ? `. Why: ${l.why}` : '';
  return `- ${ref}${body}${why}`;
}

function build(f: BriefingFacts, kept: Set<AttentionLine>, d: Detail): string {
  const s = f.summary;
  const out = [
    `### Daily briefing: ${f.tenantName}, ${formatDate(f.today)}`,
    '',
    `**Portfolio:** ${plural(s.properties_total, 'property', 'properties')}, occupancy ${percent(s.occupancy_rate)}, ` +
      `rent roll ${money(s.rent_roll_monthly_pence)} a month, arrears ${money(s.arrears_pence)}, ` +
      `${plural(s.open_deals, 'open deal')}.`,
    '',
    `_Statutory safety first, then what is already overdue or missing; certificates and notices due by ` +
      `${formatDate(f.attention.window.until)}, deal actions due within ${BRIEFING_WINDOWS.dealDays} days, ` +
      `email from the last ${f.attention.emailHours} hours._`,
  ];
  for (const { group, title } of ATTENTION_GROUPS) {
    const lines = f.attention.lines.filter((l) => l.group === group);
    out.push('', `**${title} (${lines.length})**`);
    if (lines.length === 0) out.push('- None');
    const shown = lines.filter((l) => kept.has(l));
    out.push(...shown.map((l) => lineText(l, d)));
    const left = lines.length - shown.length;
    if (left) out.push(`- and ${left} more: ask “${BRIEFING_MORE}”`);
  }
  out.push(
    '',
    `**Void properties (${f.voids.length})**`,
    f.voids.length ? `- ${f.voids.map((p) => `**${p.ref}**`).join(', ')}` : '- None',
  );
  return out.join('\n');
}

/**
 * The daily briefing in Markdown, at most BRIEFING_MAX_CHARS, ordered by statutory severity then date. When
 * everything does not fit, the words shorten first (why each line matters, then long titles), then the least
 * urgent lines go, each section saying how many and where to see them; a gas, electrical or alarm line goes
 * only when nothing else is left to cut. Facts only.
 */
export function writeBriefing(f: BriefingFacts): string {
  const all = f.attention.lines;
  const kept = new Set(all);
  for (const d of [
    { why: 'all', note: 140 },
    { why: 'safety', note: 110 },
    { why: 'none', note: 90 },
    { why: 'none', note: 60 },
  ] satisfies Detail[]) {
    const text = build(f, kept, d);
    if (text.length <= BRIEFING_MAX_CHARS) return text;
  }
  const d: Detail = { why: 'none', note: 50 };
  for (const line of cutOrder(all)) {
    kept.delete(line);
    const text = build(f, kept, d);
    if (text.length <= BRIEFING_MAX_CHARS) return text;
  }
  return truncate(build(f, kept, d), BRIEFING_MAX_CHARS);
}
