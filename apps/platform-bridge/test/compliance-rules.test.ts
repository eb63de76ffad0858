import type { ComplianceType } from '@pa/contracts';
import { describe, expect, it } from 'vitest';
import {
  defaultExpiry,
  evaluateItem,
  evaluateProperty,
  type RulesItem,
  type RulesProperty,
  requiredTypes,
  TYPE_RULES,
  worst,
} from '../src/features/compliance/compliance-rules.ts';
import { addDays, londonDate } from '../src/lib/clock.ts';

const TODAY = '2026-06-15';
const letFlat: RulesProperty = {
  lettingStatus: 'let',
  hasGas: true,
  isHmo: false,
  tenancy: { startDate: '2026-01-10', depositPence: 150_000 },
};

function item(type: ComplianceType, over: Partial<RulesItem> = {}): RulesItem {
  return {
    type,
    issueDate: '2025-07-01',
    expiryDate: null,
    nextDueDate: null,
    outcome: null,
    rating: null,
    remedialDueDate: null,
    exemptionValidUntil: null,
    ...over,
  };
}

describe('compliance rules: due-date windows', () => {
  const windowed = (
    Object.entries(TYPE_RULES) as Array<[ComplianceType, (typeof TYPE_RULES)[ComplianceType]]>
  ).filter(([type, r]) => r.windowDays !== null && type !== 'deposit_protection');

  it.each(windowed)('%s: valid one day past its window, expiring_soon on its edge', (type, rule) => {
    const window = rule.windowDays!;
    const at = (days: number) =>
      evaluateItem(item(type, { expiryDate: addDays(TODAY, days) }), letFlat, TODAY);
    expect(at(window + 1)).toEqual({ status: 'valid', daysUntilDue: window + 1 });
    expect(at(window)).toEqual({ status: 'expiring_soon', daysUntilDue: window });
  });

  it.each(windowed)('%s: expiring_soon on its due date, expired the day after', (type) => {
    const at = (days: number) =>
      evaluateItem(item(type, { expiryDate: addDays(TODAY, days) }), letFlat, TODAY);
    expect(at(0)).toEqual({ status: 'expiring_soon', daysUntilDue: 0 });
    expect(at(-1)).toEqual({ status: 'expired', daysUntilDue: -1 });
  });

  it('uses next_due_date before expiry_date', () => {
    const r = evaluateItem(
      item('gas_safety', { expiryDate: '2027-06-01', nextDueDate: '2026-06-14' }),
      letFlat,
      TODAY,
    );
    expect(r).toEqual({ status: 'expired', daysUntilDue: -1 });
  });

  it('gives the windows of the specification', () => {
    expect(TYPE_RULES.gas_safety.windowDays).toBe(60);
    expect(TYPE_RULES.eicr.windowDays).toBe(90);
    expect(TYPE_RULES.epc.windowDays).toBe(90);
    expect(TYPE_RULES.hmo_licence.windowDays).toBe(90);
    expect(TYPE_RULES.legionella_risk_assessment.windowDays).toBe(60);
    expect(TYPE_RULES.fire_risk_assessment.windowDays).toBe(60);
    expect(TYPE_RULES.deposit_protection.windowDays).toBe(7);
    expect(TYPE_RULES.right_to_rent.windowDays).toBe(28);
    expect(TYPE_RULES.pat.windowDays).toBe(30);
  });
});

describe('compliance rules: outcomes that make a let non-compliant', () => {
  it('EPC F or G without an exemption is expired however long it runs', () => {
    for (const rating of ['F', 'G']) {
      expect(evaluateItem(item('epc', { rating, expiryDate: '2034-01-01' }), letFlat, TODAY).status).toBe(
        'expired',
      );
    }
    expect(evaluateItem(item('epc', { rating: 'E', expiryDate: '2034-01-01' }), letFlat, TODAY).status).toBe(
      'valid',
    );
  });

  it('EPC F with an exemption valid through today is not expired; the day after it lapses it is', () => {
    const epc = item('epc', { rating: 'F', expiryDate: '2034-01-01', exemptionValidUntil: TODAY });
    expect(evaluateItem(epc, letFlat, TODAY).status).toBe('valid');
    expect(evaluateItem(epc, letFlat, addDays(TODAY, 1)).status).toBe('expired');
  });

  it('EICR unsatisfactory is expiring_soon while its remedial date is open, expired once it passes', () => {
    const eicr = item('eicr', {
      expiryDate: '2030-01-01',
      outcome: 'unsatisfactory',
      remedialDueDate: TODAY,
    });
    expect(evaluateItem(eicr, letFlat, TODAY).status).toBe('expiring_soon');
    expect(evaluateItem(eicr, letFlat, addDays(TODAY, 1)).status).toBe('expired');
    expect(evaluateItem({ ...eicr, remedialDueDate: null }, letFlat, TODAY).status).toBe('expired');
  });

  it('a failed certificate is expired', () => {
    expect(
      evaluateItem(item('gas_safety', { expiryDate: '2027-01-01', outcome: 'fail' }), letFlat, TODAY).status,
    ).toBe('expired');
  });

  it('an unprotected deposit is expiring_soon in the last 7 days before day 30 and expired after it', () => {
    const received = '2026-05-20';
    const due = addDays(received, 30); // 2026-06-19
    const dep = item('deposit_protection', { issueDate: null, nextDueDate: due });
    expect(evaluateItem(dep, letFlat, addDays(due, -8)).status).toBe('valid');
    expect(evaluateItem(dep, letFlat, addDays(due, -7)).status).toBe('expiring_soon');
    expect(evaluateItem(dep, letFlat, due).status).toBe('expiring_soon');
    expect(evaluateItem(dep, letFlat, addDays(due, 1)).status).toBe('expired');
  });

  it('a protected deposit is valid, whatever its original due date', () => {
    const dep = item('deposit_protection', { issueDate: '2026-01-12', nextDueDate: '2026-02-09' });
    expect(evaluateItem(dep, letFlat, TODAY)).toEqual({ status: 'valid', daysUntilDue: null });
  });

  it('smoke and CO alarms must have been checked for the current tenancy', () => {
    const start = letFlat.tenancy!.startDate;
    expect(evaluateItem(item('smoke_co_alarms', { issueDate: start }), letFlat, TODAY).status).toBe('valid');
    expect(
      evaluateItem(item('smoke_co_alarms', { issueDate: addDays(start, -28) }), letFlat, TODAY).status,
    ).toBe('valid');
    expect(
      evaluateItem(item('smoke_co_alarms', { issueDate: addDays(start, -29) }), letFlat, TODAY).status,
    ).toBe('expired');
    expect(evaluateItem(item('smoke_co_alarms', { issueDate: null }), letFlat, TODAY).status).toBe('expired');
  });
});

describe('compliance rules: required types and the property status', () => {
  it('a let property with gas, an HMO licence need and a deposit needs every type', () => {
    expect(requiredTypes({ ...letFlat, isHmo: true }).sort()).toEqual(
      [
        'deposit_protection',
        'eicr',
        'epc',
        'fire_risk_assessment',
        'gas_safety',
        'hmo_licence',
        'legionella_risk_assessment',
        'smoke_co_alarms',
      ].sort(),
    );
  });

  it('an all-electric property needs no gas safety certificate; a void one needs nothing', () => {
    expect(requiredTypes({ ...letFlat, hasGas: false })).not.toContain('gas_safety');
    expect(requiredTypes({ lettingStatus: 'void', hasGas: true, isHmo: false, tenancy: null })).toEqual([]);
  });

  it('reports needed types with no item as missing, and missing outranks expired', () => {
    const e = evaluateProperty(letFlat, [item('gas_safety', { expiryDate: '2026-01-01' })], TODAY);
    expect(e.missing.sort()).toEqual(
      ['deposit_protection', 'eicr', 'epc', 'legionella_risk_assessment', 'smoke_co_alarms'].sort(),
    );
    expect(e.status).toBe('missing');
    expect(e.counts).toEqual({ valid: 0, expiring_soon: 0, expired: 1, missing: 5 });
  });

  it('orders statuses missing > expired > expiring_soon > valid', () => {
    expect(worst(['valid', 'expiring_soon'])).toBe('expiring_soon');
    expect(worst(['expiring_soon', 'expired', 'valid'])).toBe('expired');
    expect(worst(['expired', 'missing'])).toBe('missing');
    expect(worst([])).toBe('valid');
  });

  it('defaults an expiry from the type’s cycle', () => {
    expect(defaultExpiry('gas_safety', '2026-03-15')).toBe('2027-03-14');
    expect(defaultExpiry('eicr', '2024-02-29')).toBe('2029-02-27');
    expect(defaultExpiry('deposit_protection', '2026-05-20')).toBe('2026-06-19');
    expect(defaultExpiry('smoke_co_alarms', '2026-05-20')).toBeNull();
  });
});

describe('today in Europe/London', () => {
  it('changes at London midnight to the millisecond, though each minute is formatted once', () => {
    expect(londonDate(new Date('2026-06-15T22:59:00.000Z'))).toBe('2026-06-15');
    expect(londonDate(new Date('2026-06-15T22:59:59.999Z'))).toBe('2026-06-15');
    expect(londonDate(new Date('2026-06-15T23:00:00.000Z'))).toBe('2026-06-16');
    expect(londonDate(new Date('2026-06-15T22:59:30.000Z'))).toBe('2026-06-15');
    expect(londonDate(new Date('2026-12-31T23:59:59.999Z'))).toBe('2026-12-31');
    expect(londonDate(new Date('2027-01-01T00:00:00.000Z'))).toBe('2027-01-01');
  });

  it('is the London calendar date, across the change to and from British Summer Time', () => {
    // GMT in winter: 23:30Z is still the same day in London.
    expect(londonDate(new Date('2026-03-28T23:30:00Z'))).toBe('2026-03-28');
    // Clocks go forward at 01:00Z on 29 March 2026; at 23:30Z on the 29th London is at 00:30 BST on the 30th.
    expect(londonDate(new Date('2026-03-29T22:59:00Z'))).toBe('2026-03-29');
    expect(londonDate(new Date('2026-03-29T23:00:00Z'))).toBe('2026-03-30');
    // Clocks go back at 01:00Z on 25 October 2026: 23:30Z on the 24th is 00:30 BST on the 25th.
    expect(londonDate(new Date('2026-10-24T23:30:00Z'))).toBe('2026-10-25');
    expect(londonDate(new Date('2026-10-25T23:30:00Z'))).toBe('2026-10-25');
  });

  it('a certificate due on 24 October is expired at 23:30Z that evening (already the 25th in London)', () => {
    const gas = item('gas_safety', { expiryDate: '2026-10-24' });
    expect(evaluateItem(gas, letFlat, londonDate(new Date('2026-10-24T22:59:00Z'))).status).toBe(
      'expiring_soon',
    );
    expect(evaluateItem(gas, letFlat, londonDate(new Date('2026-10-24T23:00:00Z'))).status).toBe('expired');
  });
});
