import { describe, expect, it } from 'vitest';
import { addDays, endOfMonth } from '../../src/features/briefing/dates.ts';
import { dealActionsDue } from '../../src/features/briefing/deal-facts.ts';
import { emailsAwaitingReply } from '../../src/features/briefing/email-facts.ts';
import {
  arrearsByProperty,
  monthlyRent,
  noticeGiven,
  tenanciesEnding,
  totalArrears,
  vacancies,
} from '../../src/features/briefing/lettings-facts.ts';
import { deal, email, property } from './records.ts';

const TODAY = '2026-01-31';

describe('arrears, tenancies, voids', () => {
  it('arrears: largest first, with the total', () => {
    const list = [
      property('A', { arrears_pence: 28_500 }),
      property('B'),
      property('C', { arrears_pence: 115_000 }),
    ];
    expect(arrearsByProperty(list).map((p) => p.ref)).toEqual(['C', 'A']);
    expect(totalArrears(list)).toBe(143_500);
  });

  it('tenancies ending: today and the window end included, across a month end; no end date never ends', () => {
    const until = addDays(TODAY, 30);
    expect(until).toBe('2026-03-02');
    const list = [
      property('TODAY', { tenancy_end_date: TODAY }),
      property('EDGE', { tenancy_end_date: until }),
      property('AFTER', { tenancy_end_date: addDays(until, 1) }),
      property('PAST', { tenancy_end_date: '2026-01-30' }),
      property('OPEN', { tenancy_end_date: null, tenancy_is_periodic: true }),
      property('NOTICE', { tenancy_status: 'notice_given', tenancy_end_date: '2026-06-30' }),
      property('NONE', { tenancy_status: null, tenancy_end_date: null }),
    ];
    const ending = tenanciesEnding(list, TODAY, until);
    expect(ending.map((t) => [t.property.ref, t.days, t.noticeGiven])).toEqual([
      ['TODAY', 0, false],
      ['EDGE', 30, false],
      ['NOTICE', 150, true],
    ]);
    expect(tenanciesEnding(list, TODAY, until, false).map((t) => t.property.ref)).toEqual(['TODAY', 'EDGE']);
    expect(noticeGiven(list).map((p) => p.ref)).toEqual(['NOTICE']);
    expect(endOfMonth('2026-02-10')).toBe('2026-02-28');
  });

  it('voids: no unit occupied, whatever the letting status; partly empty HMOs counted as vacant units', () => {
    const list = [
      property('VOID', { letting_status: 'void', units_occupied: 0, tenancy_status: null }),
      property('OFFER', { letting_status: 'under_offer', units_occupied: 0, tenancy_status: null }),
      property('HMO', { units_total: 6, units_occupied: 5 }),
      property('FULL'),
    ];
    const v = vacancies(list);
    expect(v.voids.map((p) => p.ref)).toEqual(['VOID', 'OFFER']);
    expect(v.partlyVacant.map((p) => p.ref)).toEqual(['HMO']);
    expect(v.vacantUnits).toBe(3);
  });

  it('monthly rent: weekly × 52 / 12, annual / 12, none when no tenancy', () => {
    expect(monthlyRent(property('W', { rent_pence: 30_000, rent_frequency: 'weekly' }))).toBe(130_000);
    expect(monthlyRent(property('Y', { rent_pence: 1_200_000, rent_frequency: 'annually' }))).toBe(100_000);
    expect(monthlyRent(property('N', { rent_pence: null, rent_frequency: null }))).toBe(0);
  });
});

describe('deals and email', () => {
  it('deal actions overdue or due within N days, most overdue first; closed and undated deals left out', () => {
    const deals = [
      deal('Later', { next_action_due: '2026-02-08' }),
      deal('Week', { next_action_due: '2026-02-07' }),
      deal('Overdue', { next_action_due: '2026-01-28' }),
      deal('Today', { next_action_due: TODAY }),
      deal('Won', { next_action_due: '2026-01-01', status: 'won' }),
      deal('Undated'),
    ];
    expect(dealActionsDue(deals, TODAY, 7).map((d) => [d.deal.title, d.days])).toEqual([
      ['Overdue', -3],
      ['Today', 0],
      ['Week', 7],
    ]);
  });

  it('email awaiting a reply: inbound, needing a response, not answered later in its thread', () => {
    const items = [
      email('Leak', { received_at: '2026-01-31T07:00:00.000Z' }),
      email('Answered', { thread_id: 't1', received_at: '2026-01-31T06:00:00.000Z' }),
      email('Re: Answered', {
        thread_id: 't1',
        direction: 'outbound',
        requires_response: false,
        received_at: '2026-01-31T06:30:00.000Z',
      }),
      email('Reply before', { thread_id: 't2', received_at: '2026-01-31T08:00:00.000Z' }),
      email('Re: earlier', {
        thread_id: 't2',
        direction: 'outbound',
        requires_response: false,
        received_at: '2026-01-31T05:00:00.000Z',
      }),
      email('Newsletter', { requires_response: false }),
    ];
    const facts = emailsAwaitingReply(items);
    expect(facts.awaiting.map((e) => e.subject)).toEqual(['Reply before', 'Leak']);
    expect(facts.answered.map((e) => e.subject)).toEqual(['Answered']);
  });
});
