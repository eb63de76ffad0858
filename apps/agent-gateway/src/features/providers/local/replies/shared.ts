import type { PortfolioProperty } from '@pa/contracts';
import type { ComplianceFinding } from '../../../briefing/compliance-facts.ts';
import { dateWords, findingDetail, statusWord, TYPE_LABELS } from '../../../briefing/compliance-words.ts';
import { addressLine, formatDate } from '../format.ts';
import { table } from '../markdown.ts';
import type { PortfolioView } from '../platform-reader.ts';

// Pieces several answers share.

/** The italic "as of" line, with a note when the portfolio could not be read whole. */
export function asOf(view: PortfolioView, extra: string[] = []): string {
  const notes = [`As of ${formatDate(view.today)}.`, ...extra];
  if (view.incomplete) notes.push(`Note: ${view.incomplete}.`);
  return `_${notes.join(' ')}_`;
}

/** "MAN-004" for a suggestion, the first of a list or a fallback. */
export function firstRef(list: { ref: string }[], view: PortfolioView): string {
  return list[0]?.ref ?? view.properties[0]?.ref ?? 'MAN-004';
}

/** Findings in a table with one status column and one date column (the status never repeats the date). */
export function findingsTable(list: ComplianceFinding[], withType: boolean): string {
  const headers = ['Ref', 'Address', ...(withType ? ['Type'] : []), 'Status', 'Date'];
  const rows = list.map((f) => [
    f.property.ref,
    addressLine(f.property),
    ...(withType ? [TYPE_LABELS[f.type]] : []),
    statusWord(f),
    dateWords(f),
  ]);
  // every finding listed: a compliance list that hid some would be wrong
  return table(headers, rows, 1_000);
}

/** "BRS-005 (EICR, expired on 20 Jan 2026 (146 days ago)), LDS-002 (…)": findings named in a sentence. */
export function findingsNamed(list: ComplianceFinding[]): string {
  return list.map((f) => `${f.property.ref} (${TYPE_LABELS[f.type]}: ${findingDetail(f)})`).join('; ');
}

export function propertiesNamed(list: PortfolioProperty[], max = 12): string {
  const refs = list.slice(0, max).map((p) => p.ref);
  return `${refs.join(', ')}${list.length > max ? ` and ${list.length - max} more` : ''}`;
}

/** " in Leeds" when the properties share a town, else " at N matching properties"; empty for the whole portfolio. */
export function scopeWords(scope: PortfolioProperty[] | null): string {
  if (!scope) return '';
  const towns = new Set(scope.map((p) => p.address.town));
  if (towns.size === 1 && scope.length > 1) return ` in ${[...towns][0]}`;
  return ` at ${scope.length === 1 ? scope[0]!.ref : `${scope.length} matching properties`}`;
}
