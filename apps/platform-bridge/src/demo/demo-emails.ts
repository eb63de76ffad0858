import type { Prisma } from '../lib/db.ts';
import { type DemoCalendar, stableHash } from './demo-calendar.ts';
import type { DealKey } from './demo-deals.ts';
import type { Portfolio } from './demo-portfolio.ts';

export const LETTINGS_MAILBOX = 'lettings@demo-lettings.co.uk';
export const ACCOUNTS_MAILBOX = 'accounts@demo-lettings.co.uk';

export type EmailRow = Omit<Prisma.EmailActivityCreateManyInput, 'tenantId' | 'propertyId' | 'dealId'> & {
  ref: string | null;
  deal: DealKey | null;
};

type Category =
  'maintenance' | 'arrears' | 'compliance' | 'viewing' | 'offer' | 'invoice' | 'council' | 'legal' | 'other';

interface EmailSpec {
  hoursAgo: number;
  thread: string;
  /** inbound: the sender; outbound: the recipient */
  party: string;
  outbound?: boolean;
  mailbox?: string;
  subject: string;
  snippet: string;
  category: Category;
  respond?: boolean;
  attachments?: boolean;
  ref?: string;
  deal?: DealKey;
}

const ukDate = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'long',
  year: 'numeric',
  timeZone: 'UTC',
});
const ukDay = new Intl.DateTimeFormat('en-GB', {
  weekday: 'long',
  day: 'numeric',
  month: 'long',
  timeZone: 'UTC',
});

export function pounds(pence: number): string {
  return `£${(pence / 100).toLocaleString('en-GB', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

// About forty messages over the last three days, as the platform's mailbox poller would have logged them:
// snippets only (never bodies), linked to the property and deal they concern.
export function buildEmails(cal: DemoCalendar, portfolio: Portfolio): EmailRow[] {
  const long = (offset: number) => ukDate.format(cal.date(offset));
  const day = (offset: number) => ukDay.format(cal.date(offset));
  const find = (ref: string, type: string) => portfolio.items.find((i) => i.ref === ref && i.type === type);
  const hmo = find('BRS-004', 'hmo_licence');
  const eicr = find('MAN-004', 'eicr');
  const lordshipEicr = find('LON-004', 'eicr');
  const finzels = portfolio.tenancies.find((t) => t.ref === 'BRS-003' && t.status !== 'ended');
  const hoe = portfolio.tenancies.find((t) => t.ref === 'LON-007' && t.status !== 'ended');
  if (!hmo || !eicr || !lordshipEicr || !finzels || !hoe) throw new Error('demo: email sources missing');
  const dateOf = (v: unknown) => (v instanceof Date ? ukDate.format(v) : 'soon');
  const depositPence = finzels.depositPence ?? 0;

  const specs: EmailSpec[] = [
    {
      hoursAgo: 0.6,
      thread: 'rightmove-bennett',
      party: 'leads@rightmove.co.uk',
      subject: 'New enquiry: 3 bed terraced house to rent, Derbyshire Lane, Stretford M32',
      snippet:
        "Laura Bennett would like to arrange a viewing. Message: 'We're a family of four relocating from Leeds and can view any weekday after 5pm or Saturday morning.' Phone: 07700 900412",
      category: 'viewing',
      respond: true,
      ref: 'MAN-007',
      deal: 'relet-derbyshire',
    },
    {
      hoursAgo: 2.5,
      thread: 'arrears-man004',
      party: 'jordan.reilly@outlook.com',
      subject: 'Re: Rent arrears – 16 Clarendon Road',
      snippet:
        "Hi, sorry I'm behind, my hours were cut last month. I've paid £245 towards it and can clear the rest at £300 a month on top of the rent from the 1st. Is that OK? The boiler's working again, thanks.",
      category: 'arrears',
      respond: true,
      ref: 'MAN-004',
    },
    {
      hoursAgo: 3.1,
      thread: 'offer-ash-road',
      party: 'sales@headingleypropertysales.co.uk',
      subject: 'Offer received – 7 Ash Road, Headingley LS6',
      snippet:
        "We've received an offer of £362,500 from a first-time buyer, mortgage agreed in principle, no chain. They know the property is tenanted and about the EPC rating. Please let us have the landlord's instructions.",
      category: 'offer',
      respond: true,
      ref: 'LDS-003',
      deal: 'disposal-ash-road',
    },
    {
      hoursAgo: 4,
      thread: 'leak-lon003',
      party: 'james.whitaker@gmail.com',
      subject: 'Leak under the kitchen sink',
      snippet:
        "Water is pooling in the cupboard under the sink again, the same joint as last month I think. I've put a bowl under it. Can someone come this week? I work from home on Tuesdays and Thursdays.",
      category: 'maintenance',
      respond: true,
      attachments: true,
      ref: 'LON-003',
    },
    {
      hoursAgo: 3.4,
      thread: 'leak-lon003',
      party: 'james.whitaker@gmail.com',
      outbound: true,
      subject: 'Re: Leak under the kitchen sink',
      snippet:
        "Thanks James. We've asked West London Plumbing to call you and book a visit for Thursday. If it gets worse, turn off the isolation valve under the sink.",
      category: 'maintenance',
      ref: 'LON-003',
    },
    {
      hoursAgo: 6.5,
      thread: 'invoice-inv-20931',
      party: 'accounts@kershawheating.co.uk',
      mailbox: ACCOUNTS_MAILBOX,
      subject: 'Invoice INV-20931 – 16 Clarendon Road, M16 8LD',
      snippet:
        'Please find attached invoice INV-20931 for replacing the diverter valve on the Worcester combi: £185.00 + VAT £37.00 = £222.00, due in 14 days. The gas safety record here has expired; shall we book the annual check?',
      category: 'invoice',
      respond: true,
      attachments: true,
      ref: 'MAN-004',
    },
    {
      hoursAgo: 8,
      thread: 'eicr-remedials-man004',
      party: 'bookings@sparksnorthwest.co.uk',
      subject: 'EICR remedials – 16 Clarendon Road',
      snippet: `Following our EICR on ${dateOf(eicr.issueDate)} we can fix the two C2 items (RCD protection for the upstairs sockets, cracked kitchen socket) on ${day(3)}. £310.00 + VAT. Please confirm access with the tenant.`,
      category: 'compliance',
      respond: true,
      ref: 'MAN-004',
    },
    {
      hoursAgo: 9.5,
      thread: 'zoopla-porter',
      party: 'leads@zoopla.co.uk',
      subject: 'Viewing request – Derbyshire Lane, Stretford M32',
      snippet:
        'Callum and Jess Porter would like to view 71 Derbyshire Lane. Both in full-time work, no pets, looking to move within six weeks. Available Saturday.',
      category: 'viewing',
      respond: true,
      ref: 'MAN-007',
      deal: 'relet-derbyshire',
    },
    {
      hoursAgo: 11,
      thread: 'rightmove-aziz',
      party: 'tariq.aziz@hotmail.co.uk',
      outbound: true,
      subject: 'Viewing: 71 Derbyshire Lane – Saturday 10:30',
      snippet:
        "Hi Tariq, thanks for your enquiry. It's council tax band B and the landlord will consider a small pet. We're holding block viewings on Saturday from 10:00; I've put you down for 10:30. Please reply to confirm.",
      category: 'viewing',
      ref: 'MAN-007',
      deal: 'relet-derbyshire',
    },
    {
      hoursAgo: 14,
      thread: 'bcc-licence-renewal',
      party: 'private.housing@bristol.gov.uk',
      subject: 'Licence renewal reminder – 118 Chesterfield Road, BS6 5DU',
      snippet: `Our records show additional HMO licence ${hmo.referenceNumber} expires on ${dateOf(hmo.expiryDate)}. To avoid a gap in licensing, please apply to renew at least 8 weeks before expiry through the council's online portal.`,
      category: 'council',
      respond: true,
      ref: 'BRS-004',
    },
    {
      hoursAgo: 20,
      thread: 'cp12-north-road',
      party: 'tom@avongasservices.co.uk',
      subject: 'Landlord gas safety record – 42 North Road, BS6 5AF',
      snippet:
        'Hi, attended yesterday and completed the annual gas safety check: boiler, hob and gas fire all passed. CP12 ref CP12-611094-04571 attached; next check due in 12 months. Invoice to follow.',
      category: 'compliance',
      attachments: true,
      ref: 'BRS-002',
    },
    {
      hoursAgo: 20.5,
      thread: 'goodlord-wellington',
      party: 'referencing@goodlord.co',
      subject: 'Referencing update – 15 Wellington Hill West',
      snippet:
        'Anna Lewis: complete, accepted. Mark Lewis: waiting for the employer reference (requested 3 days ago). We will chase the employer again today.',
      category: 'other',
      ref: 'BRS-005',
      deal: 'let-wellington',
    },
    {
      hoursAgo: 22,
      thread: 'shower-man003',
      party: 'ellie.marsh@student.manchester.ac.uk',
      subject: 'Shower not draining (27 Landcross Rd)',
      snippet:
        "The shower in the top-floor bathroom is draining really slowly and there's a smell. We've tried unblocking it. The kitchen extractor is also making a grinding noise.",
      category: 'maintenance',
      respond: true,
      ref: 'MAN-003',
    },
    {
      hoursAgo: 21,
      thread: 'shower-man003',
      party: 'ellie.marsh@student.manchester.ac.uk',
      outbound: true,
      subject: 'Re: Shower not draining (27 Landcross Rd)',
      snippet:
        "Hi Ellie, thanks for letting us know. We've asked our maintenance team to clear the shower trap and look at the extractor; they'll text you to arrange access.",
      category: 'maintenance',
      ref: 'MAN-003',
    },
    {
      hoursAgo: 24,
      thread: 'alarm-lon006',
      party: 'grace.mwangi@gmail.com',
      subject: 'Fire alarm beeping in the hallway',
      snippet:
        "The alarm head in the ground-floor hallway has been chirping every minute since last night. We haven't touched the panel. Can someone come out?",
      category: 'maintenance',
      respond: true,
      ref: 'LON-006',
    },
    {
      hoursAgo: 23,
      thread: 'alarm-lon006',
      party: 'grace.mwangi@gmail.com',
      outbound: true,
      subject: 'Re: Fire alarm beeping in the hallway',
      snippet:
        "Thanks Grace. Firecheck London will attend tomorrow between 8am and 12pm. Please don't disconnect the alarm in the meantime.",
      category: 'maintenance',
      ref: 'LON-006',
    },
    {
      hoursAgo: 27,
      thread: 'deposit-finzels',
      party: ACCOUNTS_MAILBOX,
      subject: 'Deposit received – Apartment 9, Finzels Reach',
      snippet: `Deposit of ${pounds(depositPence)} received from Oliver Grant on ${dateOf(finzels.depositReceivedAt)}. It still needs registering with mydeposits, and the prescribed information serving, by ${dateOf(cal.date(-24 + 30))}.`,
      category: 'compliance',
      respond: true,
      ref: 'BRS-003',
      deal: 'let-finzels',
    },
    {
      hoursAgo: 29,
      thread: 'ladybarn-conveyancing',
      party: 'conveyancing@northwestlaw.co.uk',
      subject: '52 Ladybarn Lane – searches and enquiries',
      snippet:
        "We've raised additional enquiries on the boundary with no. 54 and are still waiting for Manchester City Council's local search. Exchange is unlikely within the next two weeks.",
      category: 'legal',
      deal: 'acq-ladybarn',
    },
    {
      hoursAgo: 31,
      thread: 'refi-chesterton-docs',
      party: 'sophie@cobaltbrokers.co.uk',
      subject: 'Chesterton Road refinance – documents needed',
      snippet:
        "Landbay's valuer is booked for Thursday. Before the offer they need the current tenancy agreement, the EICR and the latest gas safety certificate. The gas certificate on file has expired; can you send the new one?",
      category: 'other',
      respond: true,
      ref: 'LON-003',
      deal: 'refi-chesterton',
    },
    {
      hoursAgo: 33,
      thread: 'clarence-dock-proposal',
      party: 'david@harbourlane-estates.co.uk',
      subject: 'Re: Management proposal – Clarence Dock',
      snippet:
        'Thanks for the proposal. Two questions before we decide: is the 10% fee inclusive of VAT, and would you handle service charge queries with the block managing agent?',
      category: 'other',
      respond: true,
      deal: 'mgmt-clarence-dock',
    },
    {
      hoursAgo: 35,
      thread: 'arrears-lon005',
      party: 'mateo.rossi@proton.me',
      subject: 'Rent this week',
      snippet: `Hi, I'm waiting for my first pay from the new job so I'm two weeks behind with the rent. I'll pay both weeks (£640) on ${day(3)}. Sorry for the trouble.`,
      category: 'arrears',
      respond: true,
      ref: 'LON-005',
    },
    {
      hoursAgo: 37,
      thread: 'arrears-lds004',
      party: 'bilal.hussain@gmail.com',
      outbound: true,
      subject: 'Rent arrears – 48 Bayswater Road',
      snippet:
        "Hi Bilal, our records show this week's rent of £285.00 for 48 Bayswater Road has not been received. Please let us know when the payment will be made.",
      category: 'arrears',
      ref: 'LDS-004',
    },
    {
      hoursAgo: 39,
      thread: 'newham-inspection',
      party: 'property.licensing@newham.gov.uk',
      subject: 'Licence compliance inspection – 12 Sebert Road, E7 0NH',
      snippet: `An officer will carry out a licence compliance inspection on ${long(12)}. Please have the fire risk assessment, gas safety certificate and EICR available on the day.`,
      category: 'council',
      respond: true,
      ref: 'LON-006',
    },
    {
      hoursAgo: 41,
      thread: 'legionella-palatine',
      party: 'bookings@aquasafecompliance.co.uk',
      subject: 'Legionella risk assessment overdue – Flat 3, 48 Palatine Road',
      snippet: `Our records show the 2-year review for Flat 3, 48 Palatine Road is overdue. We can reassess on ${day(5)} for £95.00 + VAT. Reply to book.`,
      category: 'compliance',
      respond: true,
      ref: 'MAN-005',
    },
    {
      hoursAgo: 43,
      thread: 'propertymark-briefing',
      party: 'news@propertymark.co.uk',
      subject: "Renters' Rights: what agents need to do next",
      snippet:
        "This month's briefing covers the end of section 21, the move to periodic tenancies, and the new rules on rent increases and rental bidding. Members' webinar on Thursday.",
      category: 'other',
    },
    {
      hoursAgo: 45,
      thread: 'damp-lds003',
      party: 'meera.patel@yahoo.co.uk',
      subject: 'Damp in the back bedroom again',
      snippet:
        "The black mould has come back on the outside wall of the back bedroom since the treatment. We're running the dehumidifier every day. Could someone take a look?",
      category: 'maintenance',
      respond: true,
      attachments: true,
      ref: 'LDS-003',
    },
    {
      hoursAgo: 47,
      thread: 'rightmove-aziz',
      party: 'leads@rightmove.co.uk',
      subject: 'New enquiry: 3 bed terraced house to rent, Derbyshire Lane, Stretford M32',
      snippet:
        "Tariq Aziz would like to arrange a viewing. Message: 'Working couple, looking to move next month. What is the council tax band, and are pets considered?'",
      category: 'viewing',
      ref: 'MAN-007',
      deal: 'relet-derbyshire',
    },
    {
      hoursAgo: 49,
      thread: 'epc-ash-road',
      party: 'nadia@yorkshireepcsurveys.co.uk',
      subject: 'EPC reassessment – 7 Ash Road',
      snippet: `I can reassess 7 Ash Road on ${day(6)}. With the loft insulation and new boiler you mentioned it should reach band E (estimated score 41–45). Fee £85.00, no VAT.`,
      category: 'compliance',
      respond: true,
      ref: 'LDS-003',
    },
    {
      hoursAgo: 51,
      thread: 'boiler-lds002',
      party: 'megan.clarke@gmail.com',
      subject: 'Re: Boiler repair – 14 Headingley Mount',
      snippet:
        'Just to say the heating has been fine since the engineer replaced the fan. Thanks for sorting it so quickly.',
      category: 'maintenance',
      ref: 'LDS-002',
    },
    {
      hoursAgo: 53,
      thread: 'offer-wellington',
      party: 'anna.lewis@nhs.net',
      outbound: true,
      subject: 'Re: Offer – 15 Wellington Hill West',
      snippet:
        'Good news: the landlord has accepted £2,300 pcm for a 12-month term and is happy to allow your cat with a pet clause. Goodlord will email you both to start referencing.',
      category: 'offer',
      ref: 'BRS-005',
      deal: 'let-wellington',
    },
    {
      hoursAgo: 55,
      thread: 'checkout-hoe-street',
      party: 'ben.hartley@gmail.com',
      subject: 'Check-out – Flat 2, 45 Hoe Street',
      snippet: `Just confirming I'll be out by ${dateOf(hoe.endDate)} as in my notice. When will the check-out inspection be, and how does the deposit return work?`,
      category: 'legal',
      respond: true,
      ref: 'LON-007',
    },
    {
      hoursAgo: 19,
      thread: 'invoice-avon-4471',
      party: 'accounts@avongasservices.co.uk',
      mailbox: ACCOUNTS_MAILBOX,
      subject: 'Invoice 4471 – 42 North Road (gas safety check)',
      snippet:
        'Invoice 4471 for the landlord gas safety check at 42 North Road: £65.00 + VAT £13.00 = £78.00, payable within 30 days. The CP12 was sent to lettings@ separately.',
      category: 'invoice',
      attachments: true,
      ref: 'BRS-002',
    },
    {
      hoursAgo: 59,
      thread: 'walthamstow-preregister',
      party: 'hello@priya-and-sam.co.uk',
      subject: 'Registering interest – 1-bed flat in Walthamstow',
      snippet:
        "We heard the flat on Hoe Street may be coming up. We're a professional couple, no pets, budget up to £1,750 pcm, and could move in from next month. Please keep us in mind for viewings.",
      category: 'viewing',
      respond: true,
      ref: 'LON-007',
    },
    {
      hoursAgo: 61,
      thread: 'insurance-beech-road',
      party: 'renewals@landlordcover.co.uk',
      subject: 'Landlord insurance renewal – 34 Beech Road',
      snippet: `Your landlord buildings and contents policy renews on ${long(24)}. Premium £512.40 including insurance premium tax. No action is needed to renew automatically.`,
      category: 'other',
      ref: 'MAN-002',
    },
    {
      hoursAgo: 63,
      thread: 'window-brs001',
      party: 'lucy.fenwick@icloud.com',
      subject: "Bedroom window won't lock",
      snippet:
        "The handle on the bedroom window has gone loose and it won't lock any more. It's on the ground floor so I'm a bit worried. Could someone fix it this week?",
      category: 'maintenance',
      respond: true,
      ref: 'BRS-001',
    },
    {
      hoursAgo: 65,
      thread: 'leeds-council-tax',
      party: 'council.tax@leeds.gov.uk',
      subject: 'Council tax: change of liability – Flat A, 31 Cardigan Road',
      snippet:
        "We have been told that a company tenancy started at this address. Please confirm the occupier's details and the start date so that we can bill the right party.",
      category: 'council',
      respond: true,
      ref: 'LDS-005',
    },
    {
      hoursAgo: 67,
      thread: 'arrears-man004',
      party: 'jordan.reilly@outlook.com',
      outbound: true,
      subject: 'Rent arrears – 16 Clarendon Road',
      snippet:
        'Dear Jordan, your rent account shows arrears of £1,150.00 after your part payment. Please contact us within 7 days to agree a payment plan so that we can avoid further action.',
      category: 'arrears',
      ref: 'MAN-004',
    },
    {
      hoursAgo: 68,
      thread: 'offer-wellington',
      party: 'anna.lewis@nhs.net',
      subject: 'Offer – 15 Wellington Hill West',
      snippet:
        "Following our viewing we'd like to offer £2,300 pcm for a 12-month tenancy starting in about three weeks. We can pay two months up front. Would the landlord consider one elderly indoor cat?",
      category: 'offer',
      respond: true,
      ref: 'BRS-005',
      deal: 'let-wellington',
    },
    {
      hoursAgo: 70,
      thread: 'radiator-lon004',
      party: 'niamh.gallagher@gmail.com',
      subject: 'Radiator cold at the top',
      snippet:
        "The living room radiator is cold at the top and warm at the bottom. I tried bleeding it but there's no key in the flat. Could you send someone or tell me where to get a key?",
      category: 'maintenance',
      respond: true,
      ref: 'LON-004',
    },
    {
      hoursAgo: 71,
      thread: 'eicr-due-lordship',
      party: 'ops@metroelectricaltesting.co.uk',
      subject: 'EICR due – Flat B, 62 Lordship Lane',
      snippet: `A reminder that the EICR for Flat B, 62 Lordship Lane falls due on ${dateOf(lordshipEicr.expiryDate)}. We have availability next week; the test takes about three hours with the power off.`,
      category: 'compliance',
      respond: true,
      ref: 'LON-004',
    },
  ];

  return specs.map((s) => {
    const mailbox = s.mailbox ?? LETTINGS_MAILBOX;
    return {
      threadId: `thr_${stableHash(s.thread).toString(16).padStart(8, '0')}`,
      direction: s.outbound ? 'outbound' : 'inbound',
      fromAddress: s.outbound ? mailbox : s.party,
      toAddresses: s.outbound ? [s.party] : [mailbox],
      subject: s.subject,
      snippet: s.snippet.length > 255 ? `${s.snippet.slice(0, 254)}…` : s.snippet,
      receivedAt: cal.hoursAgo(s.hoursAgo),
      hasAttachments: s.attachments ?? false,
      category: s.category,
      requiresResponse: s.respond ?? false,
      mailbox,
      ref: s.ref ?? null,
      deal: s.deal ?? null,
    };
  });
}
