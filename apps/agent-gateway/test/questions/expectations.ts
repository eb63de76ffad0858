import type { ComplianceType } from '@pa/contracts';
import { type Check, date, matches, mentions, mentionsNone, money, says, table } from './checks.ts';
import { arrears, cleanRefs, type DemoFacts, dueWithin, expiredRefs, townRefs } from './demo-facts.ts';

// The shape of a question of the set and the expectations several questions share, built from the checks
// (checks.ts) and the facts the bridge gives (demo-facts.ts).

export interface Question {
  id: string;
  group: string;
  /** one message, or a conversation sent in one session (the checks apply to the last reply) */
  say: string | string[];
  expect(facts: DemoFacts): Check[];
}

export const LABEL: Record<ComplianceType, RegExp> = {
  gas_safety: /gas/i,
  eicr: /EICR|electrical/i,
  epc: /EPC|energy performance/i,
  smoke_co_alarms: /smoke|carbon monoxide|\bCO alarm/i,
  hmo_licence: /HMO licen[cs]e/i,
  legionella_risk_assessment: /legionella/i,
  fire_risk_assessment: /fire risk/i,
  deposit_protection: /deposit/i,
  right_to_rent: /right to rent/i,
  pat: /\bPAT\b|portable appliance/i,
};

export const label = (type: ComplianceType) =>
  matches(LABEL[type], `mention the ${type.replaceAll('_', ' ')}`);

export const others = (f: DemoFacts, keep: string[]) => f.refs.filter((r) => !keep.includes(r));

/** "What needs attention at X?": everything not valid, with its date, what is missing, and the arrears. */
export function attention(f: DemoFacts, ref: string): Check[] {
  const p = f.byRef(ref);
  const checks: Check[] = [
    mentions([ref]),
    says(p.street),
    mentionsNone(others(f, [ref]), 'were not asked about'),
  ];
  for (const i of f.items.filter((x) => x.ref === ref && x.status !== 'valid')) {
    checks.push(label(i.type));
    // "expired" with a due date still ahead is an EPC below E: its band is the fact, not its end date
    if (i.due && !(i.status === 'expired' && i.days! > 0)) checks.push(date(i.due, `the ${i.type} date`));
    if (i.type === 'epc' && i.item.rating)
      checks.push(matches(new RegExp(`\\b${i.item.rating}\\b`), `give EPC band ${i.item.rating}`));
  }
  for (const type of p.compliance.missing) checks.push(label(type));
  if (p.property.arrears_pence > 0) checks.push(money(p.property.arrears_pence, 'the arrears'));
  return checks;
}

export function townSummary(f: DemoFacts, town: string, prefix: string): Check[] {
  const refs = townRefs(f, town);
  const otherBranches = f.refs.filter((r) => !r.startsWith(`${prefix}-`));
  return [
    mentions(refs),
    mentionsNone(otherBranches, `are not in ${town}`),
    ...(expiredRefs(f).some((r) => refs.includes(r))
      ? [matches(/expired|overdue/i, 'say what has expired')]
      : []),
    ...arrears(f)
      .filter((a) => refs.includes(a.ref))
      .map((a) => money(a.pence, `the arrears at ${a.ref}`)),
  ];
}

/** Items of `type` in a window: named with their dates; properties with nothing of that type due stay out. */
export function typeWindow(f: DemoFacts, type: ComplianceType, days: number): Check[] {
  const due = dueWithin(f, days, type);
  return [
    mentions(due.map((i) => i.ref)),
    ...due.map((i) => date(i.due!, `${i.ref}'s ${type} date`)),
    mentionsNone(
      cleanRefs(f, type).filter((r) => !due.some((i) => i.ref === r)),
      `have a valid ${type} not due within ${days} days`,
    ),
    ...(due.length > 1 ? [table()] : []),
  ];
}

export function endOfYear(today: string) {
  return `${today.slice(0, 4)}-12-31`;
}
export function endOfMonth(today: string) {
  const [y, m] = today.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
}

/** Mentioned only with its correct date: an item outside the window may be named as context, never as in it. */
export function onlyWithDate(ref: string, iso: string, why: string): Check {
  const d = date(iso, `${ref}'s date`);
  return {
    name: `${ref} only with its date`,
    run: (r) =>
      new RegExp(`\\b${ref}\\b`).test(r) && d.run(r) ? `names ${ref} (${why}) without its date` : null,
  };
}

export function dealFragment(title: string): string {
  // "Disposal – 7 Ash Road, Headingley" → "7 Ash Road"
  return (title.split(' – ')[1] ?? title).split(/[,(]/)[0]!.trim();
}
