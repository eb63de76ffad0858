import { count, date, matches, matchesNot, mentions, mentionsNone, money, says, ukDate } from './checks.ts';
import { arrears, cleanRefs, dueWithin, expiredRefs, townRefs, voidRefs } from './demo-facts.ts';
import { attention, label, others, type Question, townSummary } from './expectations.ts';

// By property (reference, street, postcode) and by town.

export const PLACE_QUESTIONS: Question[] = [
  // ---- by property ---------------------------------------------------------------------------------------
  {
    id: 'property-street-rent',
    group: 'property',
    say: "What's the rent at 14 Headingley Mount?",
    expect: (f) => [
      mentions(['LDS-002']),
      money(f.byRef('LDS-002').property.current_tenancy!.rent_pence, 'the rent'),
      mentionsNone(others(f, ['LDS-002']), 'were not asked about'),
    ],
  },
  {
    id: 'property-postcode-of',
    group: 'property',
    say: "What's the postcode of LON-002?",
    expect: (f) => [mentions(['LON-002']), says(f.byRef('LON-002').postcode, 'the postcode')],
  },
  {
    id: 'property-gas-date',
    group: 'property',
    say: 'When does the gas certificate at MAN-003 expire?',
    expect: (f) => {
      const gas = f.items.find((i) => i.ref === 'MAN-003' && i.type === 'gas_safety')!;
      return [
        mentions(['MAN-003']),
        date(gas.due!, 'the gas expiry'),
        mentionsNone(others(f, ['MAN-003']), 'were not asked about'),
      ];
    },
  },
  {
    id: 'property-ref-man004',
    group: 'property',
    say: 'What needs attention at MAN-004?',
    expect: (f) => attention(f, 'MAN-004'),
  },
  { id: 'property-ref-lowercase', group: 'property', say: 'lds-004', expect: (f) => attention(f, 'LDS-004') },
  {
    id: 'property-ref-brs004',
    group: 'property',
    say: 'Show me BRS-004',
    expect: (f) => attention(f, 'BRS-004'),
  },
  {
    id: 'property-street-clarendon',
    group: 'property',
    say: 'Tell me about 16 Clarendon Road',
    expect: (f) => attention(f, 'MAN-004'),
  },
  {
    id: 'property-street-north-road',
    group: 'property',
    say: "What's the status of 42 North Road?",
    expect: (f) => attention(f, 'BRS-002'),
  },
  {
    id: 'property-street-landcross',
    group: 'property',
    say: "What's outstanding at 27 Landcross Road?",
    expect: (f) => attention(f, 'MAN-003'),
  },
  {
    id: 'property-postcode',
    group: 'property',
    say: 'Anything I should know about LS6 3EL?',
    expect: (f) => attention(f, 'LDS-002'),
  },
  {
    id: 'property-postcode-nospace',
    group: 'property',
    say: 'what about se228hj',
    expect: (f) => attention(f, 'LON-004'),
  },
  {
    id: 'property-epc-f',
    group: 'property',
    say: 'Tell me about LDS-003',
    expect: (f) => [
      ...attention(f, 'LDS-003'),
      money(f.byRef('LDS-003').property.current_tenancy!.rent_pence, 'the rent'),
    ],
  },
  {
    id: 'property-rent',
    group: 'property',
    say: "What's the rent at 12 Sebert Road?",
    expect: (f) => [
      mentions(['LON-006']),
      money(f.byRef('LON-006').property.current_tenancy!.rent_pence, 'the rent'),
      matches(/month/i, 'say it is monthly'),
    ],
  },
  {
    id: 'property-rent-weekly',
    group: 'property',
    say: 'How much rent does LDS-004 bring in?',
    expect: (f) => [
      mentions(['LDS-004']),
      money(f.byRef('LDS-004').property.current_tenancy!.rent_pence, 'the rent'),
      matches(/week/i, 'say it is weekly'),
    ],
  },
  {
    id: 'property-void',
    group: 'property',
    say: 'Is MAN-007 let?',
    expect: () => [
      mentions(['MAN-007']),
      matches(/void|vacant|empty|not let|unoccupied/i, 'say it is empty'),
    ],
  },
  {
    id: 'property-tenancy-end',
    group: 'property',
    say: 'When does the tenancy at LON-007 end?',
    expect: (f) => {
      const t = f.byRef('LON-007').property.current_tenancy!;
      return [
        mentions(['LON-007']),
        date(t.end_date!, 'the end date'),
        matches(/notice/i, 'say notice has been given'),
        // the bridge gives the tenancy's start, not the day notice was served
        matchesNot(
          new RegExp(`notice given (since|on) ${ukDate(t.start_date)}`),
          `${ukDate(t.start_date)} is when the tenancy started`,
        ),
      ];
    },
  },
  {
    id: 'property-epc-rating',
    group: 'property',
    say: "What's the EPC rating of MAN-005?",
    expect: (f) => {
      const epc = f.byRef('MAN-005').property.epc!;
      return [
        mentions(['MAN-005']),
        matches(new RegExp(`\\b${epc.rating}\\b`), `give band ${epc.rating}`),
        date(epc.valid_until, 'the EPC expiry'),
      ];
    },
  },
  {
    id: 'property-deposit',
    group: 'property',
    say: 'Is the deposit protected at Finzels Reach?',
    expect: (f) => {
      const d = f.items.find((i) => i.ref === 'BRS-003' && i.type === 'deposit_protection')!;
      return [mentions(['BRS-003']), label('deposit_protection'), date(d.due!, 'the protection deadline')];
    },
  },

  {
    id: 'property-deposit-amount',
    group: 'property',
    say: "What's the deposit at MAN-004?",
    expect: (f) => {
      const d = f.byRef('MAN-004').property.current_tenancy!.deposit!;
      return [
        mentions(['MAN-004']),
        money(d.amount_pence, 'the deposit'),
        mentionsNone(others(f, ['MAN-004']), 'were not asked about'),
      ];
    },
  },
  {
    id: 'property-eicr',
    group: 'property',
    say: "What's the EICR status at LON-006?",
    expect: (f) => {
      const e = f.items.find((i) => i.ref === 'LON-006' && i.type === 'eicr')!;
      return [
        mentions(['LON-006']),
        matches(/unsatisfactory|remedial/i, 'say the EICR needs remedial work'),
        date(e.item.remedial_due_date!, 'the remedial deadline'),
        mentionsNone(others(f, ['LON-006']), 'were not asked about'),
      ];
    },
  },

  // ---- by town -------------------------------------------------------------------------------------------
  { id: 'town-leeds', group: 'town', say: 'summarise Leeds', expect: (f) => townSummary(f, 'Leeds', 'LDS') },
  {
    id: 'town-bristol',
    group: 'town',
    say: 'How are my Bristol properties?',
    expect: (f) => townSummary(f, 'Bristol', 'BRS'),
  },
  {
    id: 'town-london',
    group: 'town',
    say: "What's going on in London?",
    expect: (f) => townSummary(f, 'London', 'LON'),
  },
  {
    id: 'town-manchester',
    group: 'town',
    say: 'Any problems in Manchester?',
    expect: (f) => townSummary(f, 'Manchester', 'MAN'),
  },
  {
    id: 'postcode-district',
    group: 'town',
    say: 'Show me my properties in LS6',
    expect: (f) => {
      const ls6 = f.properties.filter((p) => p.postcode.toUpperCase().startsWith('LS6 ')).map((p) => p.ref);
      return [mentions(ls6), mentionsNone(others(f, ls6), 'are not in LS6')];
    },
  },
  {
    id: 'hmo-list',
    group: 'town',
    say: 'Which of my properties are HMOs?',
    expect: (f) => {
      const hmos = f.properties.filter((p) => p.property.is_hmo).map((p) => p.ref);
      return [
        mentions(hmos),
        mentionsNone(others(f, hmos), 'are not HMOs'),
        count(hmos.length, 'the number of HMOs'),
      ];
    },
  },
  {
    id: 'town-voids',
    group: 'town',
    say: 'Any void properties in Manchester?',
    expect: (f) => {
      const here = voidRefs(f).filter((r) => townRefs(f, 'Manchester').includes(r));
      return [
        mentions(here),
        mentionsNone(
          voidRefs(f).filter((r) => !here.includes(r)),
          'are not in Manchester',
        ),
      ];
    },
  },
  {
    id: 'town-gas-window',
    group: 'town',
    say: 'Which Bristol properties have gas certificates expiring in the next 60 days?',
    expect: (f) => {
      const bristol = townRefs(f, 'Bristol');
      const due = dueWithin(f, 60, 'gas_safety').filter((i) => bristol.includes(i.ref));
      return [
        mentions(due.map((i) => i.ref)),
        ...due.map((i) => date(i.due!, `${i.ref}'s gas date`)),
        mentionsNone(others(f, bristol), 'are not in Bristol'),
        mentionsNone(
          cleanRefs(f, 'gas_safety').filter((r) => bristol.includes(r)),
          'have a valid gas certificate not due within 60 days',
        ),
      ];
    },
  },
  {
    id: 'portfolio-count',
    group: 'town',
    say: 'How many properties do I manage?',
    expect: (f) => [count(f.summary.properties_total, 'the number of properties', /propert/)],
  },
  {
    id: 'town-count',
    group: 'town',
    say: 'How many properties do I have in Leeds?',
    expect: (f) => [
      count(townRefs(f, 'Leeds').length, 'the number of Leeds properties', /propert/),
      mentionsNone(
        f.refs.filter((r) => !r.startsWith('LDS-')),
        'are not in Leeds',
      ),
    ],
  },
  {
    id: 'town-arrears',
    group: 'town',
    say: 'Any arrears in London?',
    expect: (f) => {
      const london = townRefs(f, 'London');
      const here = arrears(f).filter((a) => london.includes(a.ref));
      const elsewhere = arrears(f).filter((a) => !london.includes(a.ref));
      return [
        mentions(here.map((a) => a.ref)),
        ...here.map((a) => money(a.pence, `the arrears at ${a.ref}`)),
        mentionsNone(
          elsewhere.map((a) => a.ref),
          'are not in London',
        ),
      ];
    },
  },
  {
    id: 'town-expired',
    group: 'town',
    say: 'Which Leeds properties have expired certificates?',
    expect: (f) => {
      const leeds = townRefs(f, 'Leeds');
      const expired = expiredRefs(f).filter((r) => leeds.includes(r));
      const allValid = f.properties.filter((p) => p.compliance.status === 'valid').map((p) => p.ref);
      return [
        mentions(expired),
        mentionsNone(others(f, leeds), 'are not in Leeds'),
        mentionsNone(
          allValid.filter((r) => leeds.includes(r)),
          'have nothing expired or due',
        ),
      ];
    },
  },
];
