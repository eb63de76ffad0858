import { describe, expect, it } from 'vitest';
import { briefingFacts } from '../../src/features/briefing/briefing-facts.ts';
import { BRIEFING_MAX_CHARS, writeBriefing } from '../../src/features/briefing/briefing-writer.ts';
import { compliance, deal, email, item, property } from './records.ts';

const TODAY = '2026-01-31';
const SUMMARY = {
  properties_total: 3,
  units_total: 8,
  units_occupied: 7,
  units_vacant: 1,
  occupancy_rate: 0.875,
  rent_roll_monthly_pence: 395_000,
  arrears_pence: 115_000,
  compliance: { valid: 10, expiring_soon: 1, expired: 1, missing: 1 },
  open_deals: 1,
  pipeline_value_pence: 25_000_000,
};

function facts(extraProperties = 0) {
  const man = property('MAN-004', { arrears_pence: 115_000, compliance_status: 'missing' });
  const lds = property('LDS-001', {
    compliance_status: 'expiring_soon',
    tenancy_status: 'notice_given',
    tenancy_end_date: '2026-02-28',
  });
  const voidP = property('BRS-005', { units_occupied: 0, tenancy_status: null, letting_status: 'void' });
  const many = Array.from({ length: extraProperties }, (_, i) =>
    property(`LON-${String(i).padStart(3, '0')}`, { compliance_status: 'expired' }),
  );
  return briefingFacts({
    tenantName: 'Demo Lettings Ltd',
    today: TODAY,
    summary: SUMMARY,
    properties: [man, lds, voidP, ...many],
    compliance: [
      compliance(
        man,
        [item('gas_safety', { expiry_date: '2026-01-30', status: 'expired' })],
        ['legionella_risk_assessment'],
      ),
      compliance(lds, [item('pat', { expiry_date: '2026-02-15', status: 'expiring_soon' })]),
      ...many.map((p) =>
        compliance(p, [
          item('gas_safety', {
            expiry_date: '2025-12-01',
            status: 'expired',
            notes: 'Tenant refused access twice; the engineer will try again with a key from the office.',
          }),
        ]),
      ),
    ],
    deals: [deal('Buy 3 Oak Way', { next_action_due: '2026-01-29' })],
    emails: [email('Boiler not working')],
  });
}

describe('the briefing writer', () => {
  it('facts only, each with its property ref, in UK formats and without emoji', () => {
    const text = writeBriefing(facts());
    expect(text).toMatch(/^### Daily briefing: Demo Lettings Ltd, 31 Jan 2026/);
    expect(text).toContain('occupancy 87.5%');
    expect(text).toContain('rent roll £3,950 a month');
    expect(text).toContain('**MAN-004** Gas safety certificate (CP12): expired on 30 Jan 2026 (yesterday)');
    expect(text).toContain('**MAN-004** Legionella risk assessment: missing (no record on file)');
    expect(text).toContain('**LDS-001** PAT testing: expires on 15 Feb 2026 (in 15 days)');
    expect(text).toContain('**MAN-004** £1,150 owed');
    expect(text).toContain('**LDS-001** Tenancy under notice: ends on 28 Feb 2026 (in 28 days)');
    expect(text).toContain('**BRS-005**');
    expect(text).toContain('Buy 3 Oak Way: Chase the solicitor (2 days overdue)');
    expect(text).toContain('Boiler not working');
    expect(text).not.toMatch(/\p{Extended_Pictographic}/u);
  });

  it('leads with safety: gas, electrical and alarms before every other section', () => {
    const text = writeBriefing(facts());
    const safety = text.indexOf('**Safety: gas, electrical, smoke and CO alarms (1)**');
    expect(safety).toBeGreaterThan(0);
    for (const later of ['**Other certificates', '**Deposits to protect', '**Rent arrears', '**Deal actions'])
      expect(text.indexOf(later)).toBeGreaterThan(safety);
    expect(text.indexOf('Gas safety')).toBeLessThan(text.indexOf('Legionella'));
  });

  it('stays within 4000 characters however much there is, saying how many were left out and where to see them', () => {
    const text = writeBriefing(facts(200));
    expect(text.length).toBeLessThanOrEqual(BRIEFING_MAX_CHARS);
    expect(text).toMatch(/Safety: gas, electrical, smoke and CO alarms \(201\)/);
    expect(text).toMatch(/- and \d+ more: ask “What needs my attention in the next 30 days\?”/);
  });

  it('never cuts an expired gas certificate while a less urgent line stays', () => {
    // a portfolio with many items: 12 expired gas certificates, 40 legionella assessments due, 30 emails
    const gas = Array.from({ length: 12 }, (_, i) => property(`GAS-${String(i).padStart(3, '0')}`));
    const lesser = Array.from({ length: 40 }, (_, i) => property(`LEG-${String(i).padStart(3, '0')}`));
    const f = briefingFacts({
      tenantName: 'Demo Lettings Ltd',
      today: TODAY,
      summary: SUMMARY,
      properties: [...gas, ...lesser],
      compliance: [
        ...gas.map((p, i) =>
          compliance(p, [
            item('gas_safety', {
              expiry_date: `2025-12-${String(10 + i).padStart(2, '0')}`,
              status: 'expired',
            }),
          ]),
        ),
        ...lesser.map((p, i) =>
          compliance(p, [
            item('legionella_risk_assessment', {
              next_due_date: `2026-02-${String(1 + (i % 27)).padStart(2, '0')}`,
              status: 'expiring_soon',
              notes:
                'Low risk: combi boiler, no stored water; shower heads to be descaled at each change of tenant.',
            }),
          ]),
        ),
      ],
      deals: [],
      emails: Array.from({ length: 30 }, (_, i) =>
        email(`Question ${i} about the tenancy at a property with a long subject line to take room`),
      ),
    });
    const text = writeBriefing(f);
    expect(text.length).toBeLessThanOrEqual(BRIEFING_MAX_CHARS);
    // something was cut…
    expect(text).toMatch(/- and \d+ more: ask/);
    // …but every expired gas certificate is named, oldest first, with its date
    for (const [i, p] of gas.entries())
      expect(text).toContain(`**${p.ref}** Gas safety certificate (CP12): expired on ${10 + i} Dec 2025`);
    const safety = text.slice(text.indexOf('**Safety'), text.indexOf('**Tenant copies'));
    expect(safety).not.toMatch(/and \d+ more/);
    // the lines cut were the least urgent: what falls due latest went before what falls due soonest
    const kept = [...text.matchAll(/\*\*(LEG-\d+)\*\* Legionella risk assessment: due by (\d+) Feb 2026/g)];
    const cutDays = lesser
      .map((p, i) => ({ ref: p.ref, day: 1 + (i % 27) }))
      .filter((x) => !kept.some((k) => k[1] === x.ref))
      .map((x) => x.day);
    if (kept.length && cutDays.length)
      expect(Math.max(...kept.map((k) => Number(k[2])))).toBeLessThanOrEqual(Math.min(...cutDays));
  });
});
