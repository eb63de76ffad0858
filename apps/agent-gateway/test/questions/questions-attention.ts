import type { ComplianceType } from '@pa/contracts';
import { type Check, date, gbp, matches, matchesNot, mentions, money, table } from './checks.ts';
import {
  addDays,
  arrears,
  arrearsGrown,
  type DemoFacts,
  emailsNeedingReply,
  refOfDeal,
} from './demo-facts.ts';
import { dealFragment, type Question } from './expectations.ts';

// "What needs my attention this week?" (issue 34): everything expired or missing on ANY property (a property
// with both is named under both), statutory safety first, deposits to protect worded as a deadline, tenant
// copies not served, notices and possession dates, rent reviews coming round, deal actions overdue or due,
// arrears and email awaiting a reply. Derived here from the bridge's own answers (demo-facts.ts), never from
// the gateway's code.

const SAFETY: ComplianceType[] = ['gas_safety', 'eicr', 'smoke_co_alarms'];

/** The first index in `reply` of a table row or line naming `ref` with `label`, or -1. */
function lineOf(reply: string, ref: string, label: RegExp): number {
  const re = new RegExp(`^.*\\b${ref}\\b.*$`, 'gm');
  for (const m of reply.matchAll(re)) if (label.test(m[0])) return m.index;
  return -1;
}

const LABEL: Record<ComplianceType, RegExp> = {
  gas_safety: /gas safety/i,
  eicr: /EICR/,
  smoke_co_alarms: /smoke and CO alarms/i,
  epc: /\bEPC\b/,
  hmo_licence: /HMO licen/i,
  legionella_risk_assessment: /legionella/i,
  fire_risk_assessment: /fire risk/i,
  deposit_protection: /deposit/i,
  right_to_rent: /right to rent/i,
  pat: /PAT/,
};

const escapeRe = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A line naming `ref` and the item: a property with two items is checked for each. */
const lists = (ref: string, type: ComplianceType, why: string): Check => ({
  name: `lists ${ref} ${type}`,
  run: (r) =>
    lineOf(r, ref, LABEL[type]) >= 0 ? null : `does not list ${ref}'s ${type.replaceAll('_', ' ')} (${why})`,
});

/** What the attention list for the next `days` days must hold, from the bridge's own data. */
export function attentionChecks(f: DemoFacts, days: number): Check[] {
  const until = addDays(f.today, days);
  const checks: Check[] = [table()];

  // every item expired or missing, on any property, and the certificates falling due in the window
  for (const i of f.items) {
    const inWindow = i.status === 'expiring_soon' && i.due !== null && i.due <= until;
    if (i.status !== 'expired' && !inWindow) continue;
    checks.push(lists(i.ref, i.type, i.status === 'expired' ? 'expired' : `due by ${i.due}`));
    // a date past or in the window is given (an EPC below E's far-off expiry is not the fact)
    if (i.due && i.due <= until && !(i.type === 'smoke_co_alarms'))
      checks.push(date(i.due, `${i.ref}'s ${i.type} date`));
  }
  for (const m of f.missing) checks.push(lists(m.ref, m.type, 'missing'));

  // safety first: the first gas, electrical or alarm line comes before any other certificate's
  const safety = f.items.filter((i) => SAFETY.includes(i.type) && i.status === 'expired');
  const others = f.items.filter((i) => !SAFETY.includes(i.type) && i.status === 'expired');
  if (safety.length && others.length)
    checks.push({
      name: 'safety first',
      run: (r) => {
        const firstSafety = Math.min(
          ...safety.map((i) => lineOf(r, i.ref, LABEL[i.type])).filter((n) => n >= 0),
        );
        const firstOther = Math.min(
          ...others.map((i) => lineOf(r, i.ref, LABEL[i.type])).filter((n) => n >= 0),
        );
        return firstSafety < firstOther ? null : 'does not put gas, electrical and alarm items first';
      },
    });

  // a deposit not yet protected: a deadline to act, never an expiry
  for (const p of f.properties) {
    const d = p.property.current_tenancy?.deposit;
    if (!d || d.protected_at || !d.protection_due_date || d.protection_due_date > until) continue;
    checks.push(date(d.protection_due_date, `${p.ref}'s deposit deadline`));
    checks.push(matches(/to protect|must be protected/i, `word ${p.ref}'s deposit as a deadline to act`));
  }
  checks.push(matchesNot(/deposit[^\n]*expir/i, 'a deposit to protect does not expire'));

  // tenant copies not served in time (gas record, EICR: 28 days)
  for (const i of f.items.filter((x) => x.item.tenant_copy_status === 'overdue'))
    checks.push({
      name: `${i.ref}'s tenant copy`,
      run: (r) =>
        lineOf(r, i.ref, /copy/i) >= 0
          ? null
          : `does not say ${i.ref}'s ${i.type} copy was not served to the tenant`,
    });

  // notices and possession dates falling in the window (or already past)
  for (const p of f.properties) {
    const t = p.property.current_tenancy;
    if (!t || (!t.notice_given_on && !t.possession_date)) continue;
    const end = t.possession_date ?? t.end_date;
    if (end && end > until) continue;
    checks.push(mentions([p.ref], 'tenancy under notice'));
    if (end) checks.push(date(end, `${p.ref}'s end date`));
  }

  // a rent review (section 13) whose earliest date comes round in the window
  for (const p of f.properties) {
    const next = p.row.tenancy_earliest_next_increase_on;
    if (!next || next < f.today || next > until || p.row.tenancy_status !== 'active') continue;
    checks.push({
      name: `${p.ref}'s rent review`,
      run: (r) => (lineOf(r, p.ref, /rent review/i) >= 0 ? null : `does not list ${p.ref}'s rent review`),
    });
    checks.push(date(next, `${p.ref}'s earliest rent increase`));
  }

  // deal actions overdue or due in the window
  for (const d of f.openDeals) {
    if (!d.next_action_due || d.next_action_due > until) continue;
    checks.push(
      matches(
        new RegExp(dealFragment(d.title).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')),
        `name the deal ${d.title}`,
      ),
    );
    const ref = refOfDeal(f, d);
    if (ref) checks.push(mentions([ref], 'property of a deal'));
  }

  for (const a of arrears(f)) checks.push(money(a.pence, `${a.ref}'s arrears`));
  // arrears that grew in the last 30 days: the line says by how much, and comes before those that did not grow
  const grown = arrearsGrown(f);
  for (const a of grown)
    checks.push({
      name: `${a.ref}'s arrears grew`,
      run: (r) =>
        lineOf(r, a.ref, new RegExp(`up ${escapeRe(gbp(a.risePence))}(?![0-9]|[.,][0-9])`)) >= 0
          ? null
          : `does not say ${a.ref}'s arrears are up ${gbp(a.risePence)} in 30 days`,
    });
  const flat = arrears(f).filter((a) => !grown.some((g) => g.ref === a.ref));
  if (grown.length && flat.length)
    checks.push({
      name: 'arrears that grew first',
      run: (r) => {
        const arrearsAt = (ref: string) => lineOf(r, ref, /arrears|owed/i);
        const lastGrown = Math.max(...grown.map((a) => arrearsAt(a.ref)));
        const firstFlat = Math.min(...flat.map((a) => arrearsAt(a.ref)).filter((n) => n >= 0));
        return lastGrown < firstFlat ? null : 'does not list the arrears that grew before the others';
      },
    });
  // email awaiting a reply: a day of it for today, a week for longer windows
  const mail = days === 0 ? f.emails24 : f.emails168;
  for (const e of emailsNeedingReply(mail, f.emails168))
    checks.push(
      matches(
        new RegExp(e.subject.slice(0, 25).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')),
        `name the email "${e.subject}"`,
      ),
    );
  checks.push(matchesNot(/\band \d+ more\b/, 'an attention list names every item'));
  return checks;
}

export const ATTENTION_QUESTIONS: Question[] = [
  {
    id: 'attention-this-week',
    group: 'attention',
    say: 'What needs my attention this week?',
    expect: (f) => attentionChecks(f, 7),
  },
  {
    id: 'attention-today',
    group: 'attention',
    say: 'What should I do today?',
    expect: (f) => attentionChecks(f, 0),
  },
  {
    id: 'attention-urgent',
    group: 'attention',
    say: 'Anything urgent?',
    expect: (f) => attentionChecks(f, 7),
  },
  {
    id: 'attention-30-days',
    group: 'attention',
    say: 'What needs my attention in the next 30 days?',
    expect: (f) => attentionChecks(f, 30),
  },
];
