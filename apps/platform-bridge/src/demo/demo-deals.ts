import type { Prisma } from '../lib/db.ts';
import type { DemoCalendar } from './demo-calendar.ts';

export type DealKey =
  | 'acq-ladybarn'
  | 'disposal-ash-road'
  | 'let-wellington'
  | 'relet-derbyshire'
  | 'mgmt-clarence-dock'
  | 'refi-chesterton'
  | 'acq-stokes-croft'
  | 'let-finzels';

export type DealRow = Omit<Prisma.DealCreateManyInput, 'tenantId' | 'propertyId'> & {
  key: DealKey;
  ref: string | null;
};

export function buildDeals(cal: DemoCalendar): DealRow[] {
  const d = (offset: number) => cal.date(offset);
  return [
    {
      key: 'acq-ladybarn',
      ref: null,
      title: 'Acquisition – 52 Ladybarn Lane, Fallowfield (3-bed terrace)',
      dealType: 'acquisition',
      stage: 'conveyancing',
      status: 'open',
      valuePence: 24_500_000,
      counterparty: 'Vendor via Bridgfords, Withington',
      expectedCloseDate: d(45),
      nextAction: "Chase the local authority search with the buyer's solicitor",
      nextActionDue: d(-3),
      createdAt: cal.daysAgo(40),
      updatedAt: cal.daysAgo(3),
    },
    {
      key: 'disposal-ash-road',
      ref: 'LDS-003',
      title: 'Disposal – 7 Ash Road, Headingley',
      dealType: 'disposal',
      stage: 'offer_received',
      status: 'open',
      valuePence: 37_500_000,
      counterparty: 'Landlord: Mr and Mrs Holroyd; selling agent Headingley Property Sales',
      expectedCloseDate: d(75),
      nextAction: 'Put the £362,500 offer to the landlord and agree a response',
      nextActionDue: d(1),
      source: 'proposal',
      createdAt: cal.daysAgo(21),
      updatedAt: cal.hoursAgo(3),
    },
    {
      key: 'let-wellington',
      ref: 'BRS-005',
      title: 'New let – 15 Wellington Hill West, Henleaze',
      dealType: 'letting',
      stage: 'referencing',
      status: 'open',
      valuePence: 2_760_000,
      counterparty: 'Applicants: Dr Anna Lewis and Mark Lewis',
      expectedCloseDate: d(18),
      nextAction: 'Chase Goodlord for the outstanding employer reference and book the EICR before move-in',
      nextActionDue: d(-1),
      createdAt: cal.daysAgo(12),
      updatedAt: cal.hoursAgo(20),
    },
    {
      key: 'relet-derbyshire',
      ref: 'MAN-007',
      title: 'Re-let – 71 Derbyshire Lane, Stretford',
      dealType: 'letting',
      stage: 'viewings',
      status: 'open',
      valuePence: 1_500_000,
      counterparty: 'Rightmove and Zoopla applicants',
      expectedCloseDate: d(30),
      nextAction: "Confirm Saturday's block viewings with the three applicants",
      nextActionDue: d(1),
      createdAt: cal.daysAgo(30),
      updatedAt: cal.hoursAgo(11),
    },
    {
      key: 'mgmt-clarence-dock',
      ref: null,
      title: 'Management instruction – 4 flats at Clarence Dock, Leeds',
      dealType: 'management_instruction',
      stage: 'proposal_sent',
      status: 'open',
      valuePence: 1_056_000,
      counterparty: 'Landlord: Harbour Lane Estates Ltd',
      expectedCloseDate: d(20),
      nextAction: "Answer Harbour Lane's questions on VAT and service charges and follow up the proposal",
      nextActionDue: d(-5),
      createdAt: cal.daysAgo(14),
      updatedAt: cal.daysAgo(7),
    },
    {
      key: 'refi-chesterton',
      ref: 'LON-003',
      title: 'Refinance – 18 Chesterton Road (5-year fix)',
      dealType: 'refinance',
      stage: 'valuation',
      status: 'open',
      valuePence: 62_000_000,
      counterparty: 'Landbay via Cobalt Mortgage Brokers',
      expectedCloseDate: d(35),
      nextAction: 'Send the lender a current gas safety certificate (the one on file has expired)',
      nextActionDue: d(2),
      createdAt: cal.daysAgo(26),
      updatedAt: cal.hoursAgo(31),
    },
    {
      key: 'acq-stokes-croft',
      ref: null,
      title: 'Acquisition – 2-bed flat, Jamaica Street, Stokes Croft',
      dealType: 'acquisition',
      stage: 'offer_rejected',
      status: 'lost',
      valuePence: 21_000_000,
      counterparty: 'Vendor via Hunters, Bristol',
      expectedCloseDate: null,
      nextAction: null,
      nextActionDue: null,
      createdAt: cal.daysAgo(50),
      updatedAt: cal.daysAgo(9),
    },
    {
      key: 'let-finzels',
      ref: 'BRS-003',
      title: 'New let – Apartment 9, Finzels Reach',
      dealType: 'letting',
      stage: 'moved_in',
      status: 'won',
      valuePence: 2_040_000,
      counterparty: 'Tenant: Oliver Grant',
      expectedCloseDate: d(-24),
      nextAction: 'Register the deposit with mydeposits and serve the prescribed information',
      nextActionDue: d(6),
      createdAt: cal.daysAgo(55),
      updatedAt: cal.daysAgo(24),
    },
  ];
}
