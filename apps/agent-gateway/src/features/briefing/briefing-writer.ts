import type { BriefingFacts } from './briefing-facts.ts';
import { BRIEFING_WINDOWS } from './briefing-facts.ts';
import { findingDetail, TYPE_LABELS } from './compliance-words.ts';
import { mailSource } from './email-facts.ts';
import { dueWords, formatDate, money, percent, plural, relativeDays, truncate } from './uk-format.ts';

export const BRIEFING_MAX_CHARS = 4000;

type Section = { title: string; lines: string[] };

function sections(f: BriefingFacts, cut: (t: string) => string): Section[] {
  return [
    {
      title: `Compliance expired (${f.expired.length})`,
      lines: f.expired.map(
        (x) => `- **${x.property.ref}** ${cut(`${TYPE_LABELS[x.type]}: ${findingDetail(x)}`)}`,
      ),
    },
    {
      title: `Compliance missing (${f.missing.length})`,
      lines: f.missing.map((x) => `- **${x.property.ref}** ${TYPE_LABELS[x.type]}`),
    },
    {
      title: `Expiring in the next ${BRIEFING_WINDOWS.complianceDays} days (${f.expiringSoon.length})`,
      lines: f.expiringSoon.map(
        (x) => `- **${x.property.ref}** ${cut(`${TYPE_LABELS[x.type]}: ${findingDetail(x)}`)}`,
      ),
    },
    {
      title: `Rent arrears (${f.arrears.length})`,
      lines: f.arrears.map((p) => `- **${p.ref}** ${money(p.arrears_pence)}`),
    },
    {
      title: `Tenancies ending in the next ${BRIEFING_WINDOWS.tenancyDays} days or under notice (${f.tenanciesEnding.length})`,
      lines: f.tenanciesEnding.map(
        (t) =>
          `- **${t.property.ref}** ends ${formatDate(t.endDate)} (${relativeDays(t.days)})${t.noticeGiven ? ', notice given' : ''}`,
      ),
    },
    {
      title: `Void properties (${f.voids.length})`,
      lines: f.voids.length ? [`- ${f.voids.map((p) => `**${p.ref}**`).join(', ')}`] : [],
    },
    {
      title: `Deal actions overdue or due within ${BRIEFING_WINDOWS.dealDays} days (${f.dealActions.length})`,
      lines: f.dealActions.map((d) => `- ${cut(`${d.deal.title}: ${d.action}`)} (${dueWords(d.days)})`),
    },
    {
      title: `Email awaiting a reply, last 24 hours (${f.emailsAwaiting.length})`,
      lines: f.emailsAwaiting.map(
        (e) => `- ${cut(e.subject)} (from ${cut(e.from)}${f.emailSourcesNamed ? `; ${mailSource(e)}` : ''})`,
      ),
    },
  ];
}

function build(f: BriefingFacts, rows: number, noteLen: number): string {
  const s = f.summary;
  const cut = (t: string) => truncate(t, noteLen);
  const out = [
    `### Daily briefing: ${f.tenantName}, ${formatDate(f.today)}`,
    '',
    `**Portfolio:** ${plural(s.properties_total, 'property', 'properties')}, occupancy ${percent(s.occupancy_rate)}, ` +
      `rent roll ${money(s.rent_roll_monthly_pence)} a month, arrears ${money(s.arrears_pence)}, ` +
      `${plural(s.open_deals, 'open deal')}.`,
  ];
  for (const section of sections(f, cut)) {
    out.push('', `**${section.title}**`);
    if (section.lines.length === 0) out.push('- None');
    out.push(...section.lines.slice(0, rows));
    if (section.lines.length > rows) out.push(`- and ${section.lines.length - rows} more`);
  }
  return out.join('\n');
}

/** The daily briefing in Markdown, at most BRIEFING_MAX_CHARS: lists shorten until it fits. Facts only. */
export function writeBriefing(f: BriefingFacts): string {
  for (const [rows, len] of [
    [10, 140],
    [8, 110],
    [6, 90],
    [4, 80],
    [3, 60],
    [2, 50],
  ] as const) {
    const text = build(f, rows, len);
    if (text.length <= BRIEFING_MAX_CHARS) return text;
  }
  return truncate(build(f, 1, 40), BRIEFING_MAX_CHARS);
}
