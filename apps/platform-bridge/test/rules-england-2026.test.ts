import { describe, expect, it } from 'vitest';
import {
  defaultExpiry,
  dueOf,
  type RulesItem,
  type RulesProperty,
  renewalExpiry,
  tenantCopy,
} from '../src/features/compliance/compliance-rules.ts';
import {
  depositProtectionDue,
  type TenancyFacts,
  tenancyTerms,
} from '../src/features/tenancies/tenancy-rules.ts';

// The 2026 rules for England as pure functions (docs/rules-england-2026.md): the gas early-renewal deadline, the
// tenant's copy within 28 days, periodic tenancies from 1 May 2026, section 13's yearly increase, and a deposit's
// deadline to protect. The routes' use of them is in rules-england-2026-api.test.ts.

describe('gas safety: a check done early keeps the anniversary', () => {
  // the current record runs to 31 Oct 2026: its deadline
  const deadline = '2026-10-31';

  it('keeps the anniversary for a check exactly 2 months before the deadline', () => {
    expect(renewalExpiry('gas_safety', '2026-08-31', deadline)).toBe('2027-10-31');
  });

  it('starts again from the check one day outside the 2-month window', () => {
    expect(renewalExpiry('gas_safety', '2026-08-30', deadline)).toBe('2027-08-29');
    expect(renewalExpiry('gas_safety', '2026-08-30', deadline)).toBe(
      defaultExpiry('gas_safety', '2026-08-30'),
    );
  });

  it('keeps the anniversary for a check on the deadline itself', () => {
    expect(renewalExpiry('gas_safety', deadline, deadline)).toBe('2027-10-31');
  });

  it('starts again from the check when it was late (after the deadline)', () => {
    expect(renewalExpiry('gas_safety', '2026-11-01', deadline)).toBe('2027-10-31');
    expect(renewalExpiry('gas_safety', '2026-11-20', deadline)).toBe('2027-11-19');
  });

  it('starts from the check when there is no record to renew', () => {
    expect(renewalExpiry('gas_safety', '2026-10-01', null)).toBe('2027-09-30');
  });

  it('applies to gas only: an EICR done early runs 5 years from its own date', () => {
    expect(renewalExpiry('eicr', '2026-10-01', deadline)).toBe('2031-09-30');
  });

  it('counts 2 months back across a month end (deadline 30 Apr: the window opens on 28 Feb)', () => {
    expect(renewalExpiry('gas_safety', '2026-02-28', '2026-04-30')).toBe('2027-04-30');
    expect(renewalExpiry('gas_safety', '2026-02-27', '2026-04-30')).toBe('2027-02-26');
  });

  it('handles leap years: a deadline of 29 Feb 2028 becomes 28 Feb 2029', () => {
    expect(renewalExpiry('gas_safety', '2028-01-15', '2028-02-29')).toBe('2029-02-28');
    // and a record checked on 29 Feb 2028 by default expires on 27 Feb 2029 (12 months less a day)
    expect(defaultExpiry('gas_safety', '2028-02-29')).toBe('2029-02-27');
  });
});

describe("the tenant's copy of the gas record and the EICR", () => {
  const tenanted: RulesProperty = {
    lettingStatus: 'let',
    hasGas: true,
    isHmo: false,
    tenancy: { startDate: '2025-09-01', depositPence: null },
  };
  const gas = (over: { issueDate?: string | null; servedToTenantAt?: string | null } = {}) => ({
    type: 'gas_safety' as const,
    issueDate: '2026-06-01',
    servedToTenantAt: null,
    ...over,
  });

  it('is due 28 days after the check, still in time on the 28th day, overdue the day after', () => {
    expect(tenantCopy(gas(), tenanted, '2026-06-29')).toEqual({ dueDate: '2026-06-29', status: 'due' });
    expect(tenantCopy(gas(), tenanted, '2026-06-30')).toEqual({ dueDate: '2026-06-29', status: 'overdue' });
  });

  it('is served once given on or after the check, even late', () => {
    expect(tenantCopy(gas({ servedToTenantAt: '2026-06-01' }), tenanted, '2026-06-02').status).toBe('served');
    expect(tenantCopy(gas({ servedToTenantAt: '2026-07-10' }), tenanted, '2026-08-01').status).toBe('served');
  });

  it('does not count a copy served before this check (that was the old record)', () => {
    expect(tenantCopy(gas({ servedToTenantAt: '2026-05-31' }), tenanted, '2026-07-01').status).toBe(
      'overdue',
    );
  });

  it('is owed by the move-in date when the check came before the tenancy', () => {
    const newTenancy = { ...tenanted, tenancy: { startDate: '2026-06-10', depositPence: null } };
    expect(tenantCopy(gas(), newTenancy, '2026-06-10')).toEqual({ dueDate: '2026-06-10', status: 'due' });
    expect(tenantCopy(gas(), newTenancy, '2026-06-11').status).toBe('overdue');
  });

  it('applies to the EICR the same way', () => {
    const eicr = { type: 'eicr' as const, issueDate: '2026-01-31', servedToTenantAt: null };
    // 28 days after 31 Jan is 28 Feb in a common year
    expect(tenantCopy(eicr, tenanted, '2026-03-01')).toEqual({ dueDate: '2026-02-28', status: 'overdue' });
    // and 28 Feb in a leap year too, the 29th being the 29th day
    expect(tenantCopy({ ...eicr, issueDate: '2028-01-31' }, tenanted, '2028-02-29').status).toBe('overdue');
  });

  it('owes nothing for other types, a void property or a record without a check date', () => {
    const none = { dueDate: null, status: null };
    expect(tenantCopy({ ...gas(), type: 'epc' }, tenanted, '2026-09-01')).toEqual(none);
    expect(tenantCopy(gas(), { ...tenanted, tenancy: null }, '2026-09-01')).toEqual(none);
    expect(tenantCopy(gas({ issueDate: null }), tenanted, '2026-09-01')).toEqual(none);
  });
});

describe('what an item’s due date is', () => {
  const base: RulesItem = {
    type: 'gas_safety',
    issueDate: '2026-01-01',
    expiryDate: '2026-12-31',
    nextDueDate: null,
    outcome: 'pass',
    rating: null,
    remedialDueDate: null,
    exemptionValidUntil: null,
  };

  it('is an expiry for a certificate, a next check when one is set', () => {
    expect(dueOf(base)).toEqual({ date: '2026-12-31', kind: 'expiry' });
    expect(dueOf({ ...base, nextDueDate: '2026-11-30' })).toEqual({ date: '2026-11-30', kind: 'next_check' });
  });

  it('is a deadline to act for a deposit not yet protected, and nothing once protected', () => {
    const deposit = {
      ...base,
      type: 'deposit_protection' as const,
      issueDate: null,
      expiryDate: '2026-12-02',
    };
    expect(dueOf(deposit)).toEqual({ date: '2026-12-02', kind: 'protect_by' });
    expect(dueOf({ ...deposit, issueDate: '2026-11-20' })).toEqual({ date: null, kind: null });
  });

  it('is nothing for an item without dates', () => {
    expect(dueOf({ ...base, type: 'smoke_co_alarms', expiryDate: null })).toEqual({ date: null, kind: null });
  });
});

describe('tenancies in England from 1 May 2026', () => {
  const fixedTerm: TenancyFacts = {
    status: 'active',
    startDate: '2025-09-01',
    endDate: null,
    fixedTermEndDate: '2026-08-31',
    possessionDate: null,
    isPeriodic: false,
    lastRentIncreaseOn: null,
  };

  it('before 1 May 2026 a fixed term still ends the tenancy', () => {
    expect(tenancyTerms(fixedTerm, '2026-04-30')).toMatchObject({ isPeriodic: false, endDate: '2026-08-31' });
  });

  it('from 1 May 2026 the same tenancy is periodic and its fixed term ends nothing', () => {
    expect(tenancyTerms(fixedTerm, '2026-05-01')).toMatchObject({ isPeriodic: true, endDate: null });
  });

  it('a tenancy starting after 1 May 2026 is periodic from the start, whatever was keyed in', () => {
    const later = {
      ...fixedTerm,
      status: 'pending',
      startDate: '2026-06-01',
      fixedTermEndDate: '2027-05-31',
    };
    expect(tenancyTerms(later, '2026-04-20')).toMatchObject({ isPeriodic: true, endDate: null });
  });

  it('ends on the possession date first, else on the end a notice gives', () => {
    const notice = { ...fixedTerm, status: 'notice_given', endDate: '2026-12-31' };
    expect(tenancyTerms(notice, '2026-11-27').endDate).toBe('2026-12-31');
    expect(tenancyTerms({ ...notice, possessionDate: '2026-12-20' }, '2026-11-27').endDate).toBe(
      '2026-12-20',
    );
  });

  it('an ended tenancy keeps the day it ended, and is left as agreed', () => {
    const ended = { ...fixedTerm, status: 'ended', endDate: '2026-03-31' };
    expect(tenancyTerms(ended, '2026-11-27')).toMatchObject({ isPeriodic: false, endDate: '2026-03-31' });
  });
});

describe('section 13: one rent increase a year', () => {
  const periodic: TenancyFacts = {
    status: 'active',
    startDate: '2025-11-27',
    endDate: null,
    fixedTermEndDate: null,
    possessionDate: null,
    isPeriodic: true,
    lastRentIncreaseOn: null,
  };

  it('allows none in the first 52 weeks', () => {
    expect(tenancyTerms(periodic, '2026-11-27').earliestNextIncreaseOn).toBe('2026-11-26');
  });

  it('counts 52 weeks from the last increase', () => {
    const raised = { ...periodic, lastRentIncreaseOn: '2026-06-01' };
    expect(tenancyTerms(raised, '2026-11-27').earliestNextIncreaseOn).toBe('2027-05-31');
  });

  it('counts 364 days across a leap day', () => {
    const leap = { ...periodic, lastRentIncreaseOn: '2028-01-15' };
    expect(tenancyTerms(leap, '2028-06-01').earliestNextIncreaseOn).toBe('2029-01-13');
  });

  it('before 1 May 2026 no increase could take effect within a fixed term', () => {
    const fixed = { ...periodic, startDate: '2025-03-01', isPeriodic: false, fixedTermEndDate: '2026-08-31' };
    expect(tenancyTerms(fixed, '2026-04-01').earliestNextIncreaseOn).toBe('2026-09-01');
    // from 1 May 2026 the term ends nothing: 52 weeks from the start
    expect(tenancyTerms(fixed, '2026-05-01').earliestNextIncreaseOn).toBe('2026-02-28');
  });
});

describe('deposit protection', () => {
  it('must be protected within 30 days of receipt', () => {
    expect(depositProtectionDue('2026-11-02', null)).toBe('2026-12-02');
  });

  it('has no deadline once protected, or before one is received', () => {
    expect(depositProtectionDue('2026-11-02', '2026-11-10')).toBeNull();
    expect(depositProtectionDue(null, null)).toBeNull();
  });
});
