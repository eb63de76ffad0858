import { describe, expect, it } from 'vitest';
import { attentionList, attentionWindow, linesOf } from '../../src/features/briefing/attention.ts';
import { briefingFacts } from '../../src/features/briefing/briefing-facts.ts';
import { writeBriefing } from '../../src/features/briefing/briefing-writer.ts';
import { arrearsTrends } from '../../src/features/briefing/lettings-facts.ts';
import { property } from './records.ts';

// Arrears that grew in the last 30 days (the bridge's arrears_30_days_ago_pence) lead the attention list's
// arrears, with how much they rose; the rest follow, largest first, as before.

const TODAY = '2026-06-15';
const SUMMARY = {
  properties_total: 5,
  units_total: 5,
  units_occupied: 5,
  units_vacant: 0,
  occupancy_rate: 1,
  rent_roll_monthly_pence: 600_000,
  arrears_pence: 0,
  compliance: { valid: 20, expiring_soon: 0, expired: 0, missing: 0 },
  open_deals: 0,
  pipeline_value_pence: 0,
};

const PROPERTIES = [
  // the largest debt, standing still
  property('STILL', { arrears_pence: 200_000, arrears_30_days_ago_pence: 200_000 }),
  property('FELL', { arrears_pence: 28_500, arrears_30_days_ago_pence: 57_000 }),
  property('GREW', { arrears_pence: 120_000, arrears_30_days_ago_pence: 75_000 }),
  // new since: 30 days ago there was nothing owed
  property('NEW', { arrears_pence: 10_050, arrears_30_days_ago_pence: 0 }),
  // the bridge's history began less than 30 days ago
  property('UNKNOWN', { arrears_pence: 50_000, arrears_30_days_ago_pence: null }),
  property('PAID', { arrears_pence: 0, arrears_30_days_ago_pence: 40_000 }),
];

const input = {
  tenantName: 'Test Lettings',
  today: TODAY,
  summary: SUMMARY,
  properties: PROPERTIES,
  compliance: [],
  deals: [],
  emails: [],
};

describe('arrears in the attention list', () => {
  it('puts arrears that grew first, the largest rise first, then the rest largest first', () => {
    expect(arrearsTrends(PROPERTIES).map((t) => [t.property.ref, t.changePence])).toEqual([
      ['GREW', 45_000],
      ['NEW', 10_050],
      ['STILL', 0],
      ['UNKNOWN', null],
      ['FELL', -28_500],
    ]);
    const lines = linesOf(attentionList(input, attentionWindow(TODAY, 'week')), 'arrears');
    expect(lines.map((l) => l.ref)).toEqual(['GREW', 'NEW', 'STILL', 'UNKNOWN', 'FELL']);
  });

  it('says how the arrears moved in 30 days, when the bridge knows', () => {
    const lines = linesOf(attentionList(input, attentionWindow(TODAY, 'week')), 'arrears');
    const of = (ref: string) => lines.find((l) => l.ref === ref)!;
    expect(of('GREW')).toMatchObject({
      item: 'Rent arrears',
      state: 'up £450 in 30 days, now £1,200',
      status: '£1,200 owed, up £450',
      why: 'arrears growing: contact the tenant now',
    });
    expect(of('NEW').state).toBe('up £100.50 in 30 days, now £100.50');
    expect(of('FELL')).toMatchObject({
      state: 'down £285 in 30 days, now £285',
      status: '£285 owed, down £285',
      why: 'rent owed: contact the tenant before it grows',
    });
    expect(of('STILL')).toMatchObject({ state: '£2,000 owed, unchanged in 30 days', status: '£2,000 owed' });
    expect(of('UNKNOWN')).toMatchObject({ state: '£500 owed', status: '£500 owed' });
    // paid off: nothing to chase
    expect(lines.some((l) => l.ref === 'PAID')).toBe(false);
  });

  it('reaches the daily briefing in that order and those words', () => {
    const text = writeBriefing(briefingFacts(input));
    const grew = text.indexOf('**GREW** up £450 in 30 days, now £1,200');
    expect(grew).toBeGreaterThan(-1);
    expect(text.indexOf('**STILL** £2,000 owed, unchanged in 30 days')).toBeGreaterThan(grew);
  });
});
