import { describe, expect, it } from 'vitest';
import {
  complianceFindings,
  dueBy,
  epcsBelowE,
  needingAttention,
} from '../../src/features/briefing/compliance-facts.ts';
import { dateWords, findingDetail, statusWord } from '../../src/features/briefing/compliance-words.ts';
import { endOfMonth, endOfYear } from '../../src/features/briefing/dates.ts';
import { compliance, item, property } from './records.ts';

// A fixed "today": 31 January 2026, the last day of a month.
const TODAY = '2026-01-31';

describe('compliance findings', () => {
  it('a due date today, yesterday and across the month end: the right days, and words that agree', () => {
    const p = property('LDS-001');
    const findings = complianceFindings(
      [
        compliance(p, [
          item('gas_safety', { expiry_date: '2026-01-31', status: 'expiring_soon' }),
          item('eicr', { expiry_date: '2026-01-30', status: 'expired' }),
          item('pat', { expiry_date: '2026-02-01', status: 'expiring_soon' }),
        ]),
      ],
      TODAY,
    );
    const byType = Object.fromEntries(findings.map((f) => [f.type, f]));
    expect(byType.gas_safety!.days).toBe(0);
    expect(findingDetail(byType.gas_safety!)).toBe('expires on 31 Jan 2026 (today)');
    expect(byType.eicr!.days).toBe(-1);
    expect(byType.eicr!.reason).toBe('overdue');
    expect(findingDetail(byType.eicr!)).toBe('expired on 30 Jan 2026 (yesterday)');
    expect(byType.pat!.days).toBe(1);
    expect(findingDetail(byType.pat!)).toBe('expires on 1 Feb 2026 (tomorrow)');
    // most urgent first: the expired one, then by date
    expect(findings.map((f) => f.type)).toEqual(['eicr', 'gas_safety', 'pat']);
  });

  it('an item with a remedial date: due when the remedial work is, with the defects', () => {
    const p = property('MAN-004');
    const [f] = complianceFindings(
      [
        compliance(p, [
          item('eicr', {
            expiry_date: '2030-01-01',
            outcome: 'unsatisfactory',
            remedial_due_date: '2026-02-12',
            eicr_codes: { c1: 0, c2: 2, c3: 1, fi: 0 },
            status: 'expiring_soon',
          }),
        ]),
      ],
      TODAY,
    );
    expect(f!.dueDate).toBe('2026-02-12');
    expect(f!.days).toBe(12);
    expect(statusWord(f!)).toBe('Unsatisfactory (2 × C2): remedial work due');
    expect(dateWords(f!)).toBe('12 Feb 2026 (in 12 days)');
    expect(findingDetail(f!)).toBe('unsatisfactory (2 × C2): remedial work due by 12 Feb 2026 (in 12 days)');
  });

  it('an EPC rated F is not valid without being "expired in N days"', () => {
    const p = property('LDS-003');
    const findings = complianceFindings(
      [compliance(p, [item('epc', { expiry_date: '2033-01-22', rating: 'F', status: 'expired' })])],
      TODAY,
    );
    const [f] = findings;
    expect(f!.reason).toBe('epc-below-e');
    expect(findingDetail(f!)).toBe(
      'rated F, below the legal minimum of E for letting (certificate valid until 22 Jan 2033)',
    );
    expect(findingDetail(f!)).not.toMatch(/expired|in \d+ days/);
    expect(epcsBelowE(findings).map((x) => x.property.ref)).toEqual(['LDS-003']);
  });

  it('words instead of "not valid": alarms not checked for the tenancy, a deposit to protect by its deadline', () => {
    const p = property('MAN-002');
    const [alarms, deposit] = complianceFindings(
      [
        compliance(p, [
          item('smoke_co_alarms', { issue_date: '2024-06-12', outcome: 'pass', status: 'expired' }),
          item('deposit_protection', { next_due_date: '2026-02-06', status: 'expiring_soon' }),
        ]),
      ],
      TODAY,
    );
    expect(alarms!.reason).toBe('alarms-not-checked');
    expect(statusWord(alarms!)).toBe('Not checked for this tenancy');
    expect(dateWords(alarms!)).toBe('last checked 12 Jun 2024');
    expect(findingDetail(alarms!)).toBe(
      'not checked at the start of the current tenancy (last checked 12 Jun 2024)',
    );
    expect(statusWord(deposit!)).toBe('To protect');
    expect(findingDetail(deposit!)).toBe(
      'must be protected, and the prescribed information served, by 6 Feb 2026 (in 6 days)',
    );
    for (const f of [alarms!, deposit!])
      expect(`${statusWord(f)} ${findingDetail(f)}`).not.toMatch(/not valid|expires/i);
  });

  it('missing types come after expired items and before those expiring; valid ones are not "needing attention"', () => {
    const a = property('A-001');
    const b = property('B-001');
    const findings = complianceFindings(
      [
        compliance(a, [item('gas_safety', { expiry_date: '2026-03-01', status: 'expiring_soon' })], ['epc']),
        compliance(b, [
          item('gas_safety', { expiry_date: '2025-12-01', status: 'expired' }),
          item('eicr', { expiry_date: '2029-01-01', status: 'valid' }),
        ]),
      ],
      TODAY,
    );
    expect(findings.map((f) => `${f.property.ref} ${f.status}`)).toEqual([
      'B-001 expired',
      'A-001 missing',
      'A-001 expiring',
      'B-001 valid',
    ]);
    expect(needingAttention(findings)).toHaveLength(3);
  });

  it('dueBy: from today to the window end inclusive, nothing expired; this month and this year', () => {
    const p = property('X-001');
    const findings = complianceFindings(
      [
        compliance(p, [
          item('gas_safety', { expiry_date: '2026-01-31', status: 'expiring_soon' }),
          item('eicr', { expiry_date: '2026-12-31', status: 'valid' }),
          item('epc', { expiry_date: '2027-01-01', status: 'valid' }),
          item('pat', { expiry_date: '2026-01-01', status: 'expired' }),
        ]),
      ],
      TODAY,
    );
    expect(endOfMonth(TODAY)).toBe('2026-01-31');
    expect(endOfYear(TODAY)).toBe('2026-12-31');
    expect(dueBy(findings, endOfMonth(TODAY)).map((f) => f.type)).toEqual(['gas_safety']);
    expect(dueBy(findings, endOfYear(TODAY)).map((f) => f.type)).toEqual(['gas_safety', 'eicr']);
  });
});
