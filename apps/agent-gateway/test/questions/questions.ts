import type { ComplianceType } from '@pa/contracts';
import {
  anyOf,
  type Check,
  count,
  date,
  matches,
  matchesNot,
  mentions,
  mentionsNone,
  money,
  notFound,
  says,
  saysNot,
  table,
  ukDate,
} from './checks.ts';
import {
  arrears,
  cleanRefs,
  type DemoFacts,
  daysBetween,
  dueAfter,
  dueWithin,
  emailsNeedingReply,
  expiredRefs,
  refOfDeal,
  tenanciesEnding,
  tenanciesEndingAfter,
  townRefs,
  voidRefs,
} from './demo-facts.ts';

// What a UK letting agent asks, and what each answer must contain, computed from the bridge's own data (see
// demo-facts.ts). Written against what a property manager needs, not against today's replies: a question
// that fails here is a wrong or unhelpful answer.

export interface Question {
  id: string;
  group: string;
  /** one message, or a conversation sent in one session (the checks apply to the last reply) */
  say: string | string[];
  expect(facts: DemoFacts): Check[];
}

const LABEL: Record<ComplianceType, RegExp> = {
  gas_safety: /gas/i,
  eicr: /EICR|electrical/i,
  epc: /EPC|energy performance/i,
  smoke_co_alarms: /smoke|carbon monoxide|\bCO alarm/i,
  hmo_licence: /HMO licen[cs]e/i,
  legionella_risk_assessment: /legionella/i,
  fire_risk_assessment: /fire risk/i,
  deposit_protection: /deposit/i,
  right_to_rent: /right to rent/i,
  pat: /\bPAT\b|portable appliance/i,
};

const label = (type: ComplianceType) => matches(LABEL[type], `mention the ${type.replaceAll('_', ' ')}`);

const others = (f: DemoFacts, keep: string[]) => f.refs.filter((r) => !keep.includes(r));

/** "What needs attention at X?": everything not valid, with its date, what is missing, and the arrears. */
function attention(f: DemoFacts, ref: string): Check[] {
  const p = f.byRef(ref);
  const checks: Check[] = [
    mentions([ref]),
    says(p.street),
    mentionsNone(others(f, [ref]), 'were not asked about'),
  ];
  for (const i of f.items.filter((x) => x.ref === ref && x.status !== 'valid')) {
    checks.push(label(i.type));
    // "expired" with a due date still ahead is an EPC below E: its band is the fact, not its end date
    if (i.due && !(i.status === 'expired' && i.days! > 0)) checks.push(date(i.due, `the ${i.type} date`));
    if (i.type === 'epc' && i.item.rating)
      checks.push(matches(new RegExp(`\\b${i.item.rating}\\b`), `give EPC band ${i.item.rating}`));
  }
  for (const type of p.compliance.missing) checks.push(label(type));
  if (p.property.arrears_pence > 0) checks.push(money(p.property.arrears_pence, 'the arrears'));
  return checks;
}

function townSummary(f: DemoFacts, town: string, prefix: string): Check[] {
  const refs = townRefs(f, town);
  const otherBranches = f.refs.filter((r) => !r.startsWith(`${prefix}-`));
  return [
    mentions(refs),
    mentionsNone(otherBranches, `are not in ${town}`),
    ...expiredRefs(f)
      .filter((r) => refs.includes(r))
      .map(() => matches(/expired|overdue/i, 'say what has expired')),
    ...arrears(f)
      .filter((a) => refs.includes(a.ref))
      .map((a) => money(a.pence, `the arrears at ${a.ref}`)),
  ];
}

/** Items of `type` in a window: named with their dates; properties with nothing of that type due stay out. */
function typeWindow(f: DemoFacts, type: ComplianceType, days: number): Check[] {
  const due = dueWithin(f, days, type);
  return [
    mentions(due.map((i) => i.ref)),
    ...due.map((i) => date(i.due!, `${i.ref}'s ${type} date`)),
    mentionsNone(
      cleanRefs(f, type).filter((r) => !due.some((i) => i.ref === r)),
      `have a valid ${type} not due within ${days} days`,
    ),
    ...(due.length > 1 ? [table()] : []),
  ];
}

function endOfYear(today: string) {
  return `${today.slice(0, 4)}-12-31`;
}
function endOfMonth(today: string) {
  const [y, m] = today.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
}

/** Mentioned only with its correct date: an item outside the window may be named as context, never as in it. */
function onlyWithDate(ref: string, iso: string, why: string): Check {
  const d = date(iso, `${ref}'s date`);
  return {
    name: `${ref} only with its date`,
    run: (r) =>
      new RegExp(`\\b${ref}\\b`).test(r) && d.run(r) ? `names ${ref} (${why}) without its date` : null,
  };
}

function dealFragment(title: string): string {
  // "Disposal – 7 Ash Road, Headingley" → "7 Ash Road"
  return (title.split(' – ')[1] ?? title).split(/[,(]/)[0]!.trim();
}

export const QUESTIONS: Question[] = [
  // ---- by property ---------------------------------------------------------------------------------------
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

  // ---- compliance by type and window ---------------------------------------------------------------------
  {
    id: 'gas-expired',
    group: 'compliance',
    say: 'Which gas safety certificates have expired?',
    expect: (f) => {
      const expired = f.items.filter((i) => i.type === 'gas_safety' && i.status === 'expired');
      return [
        mentions(expired.map((i) => i.ref)),
        ...expired.map((i) => date(i.due!, `${i.ref}'s expiry`)),
        ...expired.map((i) => says(f.byRef(i.ref).street)),
        mentionsNone(cleanRefs(f, 'gas_safety'), 'have a valid gas certificate'),
        ...(expired.length > 1 ? [table()] : []),
      ];
    },
  },
  {
    id: 'gas-expired-with-soon',
    group: 'compliance',
    say: 'Which gas safety certificates have expired or are expiring soon?',
    expect: (f) => {
      const gas = f.items.filter((i) => i.type === 'gas_safety' && i.status !== 'valid');
      return [
        mentions(gas.map((i) => i.ref)),
        ...gas.map((i) => date(i.due!, `${i.ref}'s gas date`)),
        mentionsNone(cleanRefs(f, 'gas_safety'), 'have a valid gas certificate'),
        count(gas.filter((i) => i.status === 'expiring_soon').length, 'how many are expiring soon'),
        table(),
      ];
    },
  },
  {
    id: 'gas-60-days',
    group: 'compliance',
    say: 'Which gas certificates expire in the next 60 days?',
    expect: (f) => typeWindow(f, 'gas_safety', 60),
  },
  {
    id: 'gas-30-days',
    group: 'compliance',
    say: 'gas safety due in the next 30 days',
    expect: (f) => typeWindow(f, 'gas_safety', 30),
  },
  {
    id: 'epc-below-e',
    group: 'compliance',
    say: 'Which EPCs are below E?',
    expect: (f) => {
      const low = f.properties.filter((p) => p.property.epc && 'FG'.includes(p.property.epc.rating));
      return [
        mentions(low.map((p) => p.ref)),
        ...low.map((p) =>
          matches(
            new RegExp(`\\b${p.property.epc!.rating}\\b`),
            `give ${p.ref}'s band ${p.property.epc!.rating}`,
          ),
        ),
        mentionsNone(
          others(
            f,
            low.map((p) => p.ref),
          ),
          'have an EPC of E or better',
        ),
      ];
    },
  },
  {
    id: 'epc-90-days',
    group: 'compliance',
    say: 'Which EPCs expire in the next 90 days?',
    expect: (f) => typeWindow(f, 'epc', 90),
  },
  {
    id: 'epc-missing',
    group: 'compliance',
    say: 'Which properties have no EPC?',
    expect: (f) => {
      const none = f.missing.filter((m) => m.type === 'epc').map((m) => m.ref);
      return [mentions(none), mentionsNone(others(f, none), 'have an EPC')];
    },
  },
  {
    id: 'eicr-overdue',
    group: 'compliance',
    say: 'Which EICRs are overdue?',
    expect: (f) => {
      const over = expiredRefs(f, 'eicr');
      return [
        mentions(over),
        ...f.items
          .filter((i) => i.type === 'eicr' && i.status === 'expired')
          .map((i) => date(i.due!, `${i.ref}'s EICR date`)),
        mentionsNone(cleanRefs(f, 'eicr'), 'have a valid EICR'),
      ];
    },
  },
  {
    id: 'eicr-remedial',
    group: 'compliance',
    say: 'Which EICRs need remedial work?',
    expect: (f) => {
      const rem = f.items.filter((i) => i.type === 'eicr' && i.item.remedial_due_date);
      return [
        mentions(rem.map((i) => i.ref)),
        ...rem.map((i) => date(i.item.remedial_due_date!, `${i.ref}'s remedial deadline`)),
        mentionsNone(cleanRefs(f, 'eicr'), 'have a satisfactory EICR'),
      ];
    },
  },
  {
    id: 'hmo-this-year',
    group: 'compliance',
    say: 'HMO licences expiring this year',
    expect: (f) => {
      const left = daysBetween(f.today, endOfYear(f.today));
      const inYear = dueWithin(f, left, 'hmo_licence');
      const later = dueAfter(f, left, 'hmo_licence');
      return [
        mentions(inYear.map((i) => i.ref)),
        ...inYear.map((i) => date(i.due!, `${i.ref}'s licence expiry`)),
        ...later.map((i) => onlyWithDate(i.ref, i.due!, `its licence runs past this year`)),
        ...(inYear.length ? [] : [matches(/\bno\b|\bnone\b|nothing/i, 'say none expires this year')]),
      ];
    },
  },
  {
    id: 'hmo-90-days',
    group: 'compliance',
    say: 'Which HMO licences expire in the next 90 days?',
    expect: (f) => typeWindow(f, 'hmo_licence', 90),
  },
  {
    id: 'overdue-all',
    group: 'compliance',
    say: 'What compliance is overdue?',
    expect: (f) => {
      const over = expiredRefs(f);
      const calm = f.properties.filter((p) => p.compliance.status === 'valid').map((p) => p.ref);
      return [mentions(over), mentionsNone(calm, 'are fully compliant'), table()];
    },
  },
  {
    id: 'next-30-days',
    group: 'compliance',
    say: "What's expiring in the next 30 days?",
    expect: (f) => {
      const due = dueWithin(f, 30);
      const quiet = f.refs.filter(
        (r) =>
          !f.items.some((i) => i.ref === r && i.status !== 'valid') && !f.missing.some((m) => m.ref === r),
      );
      return [
        mentions(due.map((i) => i.ref)),
        ...due.map((i) => date(i.due!, `${i.ref}'s ${i.type} date`)),
        mentionsNone(quiet, 'have nothing due'),
        table(),
      ];
    },
  },
  {
    id: 'this-month',
    group: 'compliance',
    say: 'What expires this month?',
    expect: (f) => {
      const due = dueWithin(f, daysBetween(f.today, endOfMonth(f.today)));
      const later = f.items.filter(
        (i) =>
          i.days !== null && i.days > daysBetween(f.today, endOfMonth(f.today)) && i.status !== 'expired',
      );
      return [
        mentions(due.map((i) => i.ref)),
        ...due.map((i) => date(i.due!, `${i.ref}'s ${i.type} date`)),
        ...(due.length ? [] : [matches(/\bno\b|\bnone\b|nothing/i, 'say nothing expires this month')]),
        // overdue and missing items may be mentioned as already late; the rest has nothing due this month
        mentionsNone(
          [...new Set(later.map((i) => i.ref))].filter(
            (r) =>
              !due.some((i) => i.ref === r) &&
              !expiredRefs(f).includes(r) &&
              !f.missing.some((m) => m.ref === r),
          ),
          'have nothing due this month',
        ),
      ];
    },
  },
  {
    id: 'next-7-days',
    group: 'compliance',
    say: 'Anything due in the next 7 days?',
    expect: (f) => {
      const due = dueWithin(f, 7);
      return [mentions(due.map((i) => i.ref)), ...due.map((i) => date(i.due!, `${i.ref}'s ${i.type} date`))];
    },
  },
  {
    id: 'missing-certs',
    group: 'compliance',
    say: 'Show me missing certificates',
    expect: (f) => {
      const refs = [...new Set(f.missing.map((m) => m.ref))];
      return [mentions(refs), mentionsNone(others(f, refs), 'have nothing missing')];
    },
  },
  {
    id: 'missing-legionella',
    group: 'compliance',
    say: 'Which properties are missing a legionella risk assessment?',
    expect: (f) => {
      const refs = f.missing.filter((m) => m.type === 'legionella_risk_assessment').map((m) => m.ref);
      return [
        mentions(refs),
        mentionsNone(cleanRefs(f, 'legionella_risk_assessment'), 'have a current legionella risk assessment'),
      ];
    },
  },
  {
    id: 'smoke-expired',
    group: 'compliance',
    say: 'Which smoke alarm checks have expired?',
    expect: (f) => [
      mentions(expiredRefs(f, 'smoke_co_alarms')),
      mentionsNone(cleanRefs(f, 'smoke_co_alarms'), 'have valid smoke alarm checks'),
    ],
  },
  {
    id: 'fire-risk',
    group: 'compliance',
    say: 'Which fire risk assessments need doing?',
    expect: (f) => {
      const items = f.items.filter((i) => i.type === 'fire_risk_assessment' && i.status !== 'valid');
      const miss = f.missing.filter((m) => m.type === 'fire_risk_assessment').map((m) => m.ref);
      return [
        mentions([...items.map((i) => i.ref), ...miss]),
        ...items.map((i) => date(i.due!, `${i.ref}'s fire risk date`)),
        mentionsNone(cleanRefs(f, 'fire_risk_assessment'), 'have a current fire risk assessment'),
      ];
    },
  },
  {
    id: 'compliance-summary',
    group: 'compliance',
    say: 'Give me a compliance summary',
    expect: (f) => {
      const c = f.summary.compliance;
      return [
        count(c.valid, 'valid items', /valid/),
        count(c.expiring_soon, 'expiring soon', /expiring/),
        count(c.expired, 'expired', /expired/),
        count(c.missing, 'missing', /missing/),
      ];
    },
  },

  // ---- arrears -------------------------------------------------------------------------------------------
  {
    id: 'arrears-which',
    group: 'arrears',
    say: 'which properties have arrears?',
    expect: (f) => {
      const a = arrears(f);
      return [
        mentions(a.map((x) => x.ref)),
        ...a.map((x) => money(x.pence, `${x.ref}'s arrears`)),
        money(f.summary.arrears_pence, 'the total'),
        mentionsNone(
          others(
            f,
            a.map((x) => x.ref),
          ),
          'owe nothing',
        ),
        table(),
      ];
    },
  },
  {
    id: 'arrears-who-owes',
    group: 'arrears',
    say: 'Who owes rent?',
    expect: (f) => [
      mentions(arrears(f).map((x) => x.ref)),
      ...arrears(f).map((x) => money(x.pence, `${x.ref}'s arrears`)),
      mentionsNone(
        others(
          f,
          arrears(f).map((x) => x.ref),
        ),
        'owe nothing',
      ),
    ],
  },
  {
    id: 'arrears-total',
    group: 'arrears',
    say: 'What are my total arrears?',
    expect: (f) => [money(f.summary.arrears_pence, 'the total arrears')],
  },
  {
    id: 'arrears-one',
    group: 'arrears',
    say: 'How much does MAN-004 owe?',
    expect: (f) => [
      mentions(['MAN-004']),
      money(f.byRef('MAN-004').property.arrears_pence, 'the arrears'),
      mentionsNone(others(f, ['MAN-004']), 'were not asked about'),
    ],
  },
  {
    id: 'arrears-none',
    group: 'arrears',
    say: 'Is BRS-002 in arrears?',
    expect: (f) => [
      mentions(['BRS-002']),
      matches(
        /arrears:?\**:?\s*(none|nil|£0\b)|no arrears|not in arrears|up to date|owes nothing/i,
        'say there are no arrears',
      ),
      mentionsNone(
        arrears(f).map((a) => a.ref),
        'were not asked about',
      ),
    ],
  },

  // ---- voids and occupancy -------------------------------------------------------------------------------
  {
    id: 'voids',
    group: 'voids',
    say: 'Which properties are void?',
    expect: (f) => {
      const full = f.properties
        .filter((p) => p.property.units_occupied === p.property.units_total)
        .map((p) => p.ref);
      return [mentions(voidRefs(f)), mentionsNone(full, 'are fully let')];
    },
  },
  {
    id: 'occupancy',
    group: 'voids',
    say: "What's my occupancy?",
    expect: (f) => [
      matches(
        new RegExp(`${(f.summary.occupancy_rate * 100).toFixed(1).replace('.', '\\.')}%`),
        `give ${(f.summary.occupancy_rate * 100).toFixed(1)}%`,
      ),
      anyOf(
        'the units let or empty',
        count(f.summary.units_occupied, 'occupied units', /occupied|let/),
        count(f.summary.units_vacant, 'vacant units', /vacant|empty|void/),
      ),
      count(f.summary.units_total, 'units'),
    ],
  },
  {
    id: 'empty-units',
    group: 'voids',
    say: 'How many empty units do I have?',
    expect: (f) => {
      const partly = f.properties
        .filter((p) => p.property.units_occupied < p.property.units_total)
        .map((p) => p.ref);
      return [count(f.summary.units_vacant, 'vacant units'), mentions(partly)];
    },
  },

  // ---- tenancies -----------------------------------------------------------------------------------------
  {
    id: 'tenancies-60',
    group: 'tenancies',
    say: 'which tenancies end in the next 60 days?',
    expect: (f) => {
      const t = tenanciesEnding(f, 60);
      return [
        mentions(t.map((x) => x.ref)),
        ...t.map((x) => date(x.end, `${x.ref}'s end date`)),
        mentionsNone(tenanciesEndingAfter(f, 60), 'end later than 60 days'),
        ...(t.length > 1 ? [table()] : []),
      ];
    },
  },
  {
    id: 'tenancies-90',
    group: 'tenancies',
    say: 'Tenancies ending in the next 90 days',
    expect: (f) => {
      const t = tenanciesEnding(f, 90);
      return [
        mentions(t.map((x) => x.ref)),
        ...t.map((x) => date(x.end, `${x.ref}'s end date`)),
        mentionsNone(tenanciesEndingAfter(f, 90), 'end later than 90 days'),
      ];
    },
  },
  {
    id: 'tenancies-notice',
    group: 'tenancies',
    say: 'Who has given notice?',
    expect: (f) => {
      const notice = f.properties.filter((p) => p.property.current_tenancy?.status === 'notice_given');
      return [
        mentions(notice.map((p) => p.ref)),
        ...notice
          .filter((p) => p.property.current_tenancy!.end_date)
          .map((p) => date(p.property.current_tenancy!.end_date!, `${p.ref}'s end date`)),
        mentionsNone(
          others(
            f,
            notice.map((p) => p.ref),
          ),
          'have not given notice',
        ),
      ];
    },
  },
  {
    id: 'tenancies-periodic',
    group: 'tenancies',
    say: 'Which tenancies are periodic?',
    expect: (f) => {
      const periodic = f.properties.filter((p) => p.property.current_tenancy?.is_periodic).map((p) => p.ref);
      return [mentions(periodic), mentionsNone(others(f, periodic), 'are on a fixed term or empty')];
    },
  },

  // ---- rent roll and overview ----------------------------------------------------------------------------
  {
    id: 'rent-roll',
    group: 'rent',
    say: "What's my rent roll?",
    expect: (f) => [
      money(f.summary.rent_roll_monthly_pence, 'the monthly rent roll'),
      matches(/month/i, 'say it is monthly'),
    ],
  },
  {
    id: 'overview',
    group: 'rent',
    say: 'Give me a portfolio overview',
    expect: (f) => [
      count(f.summary.properties_total, 'properties', /propert/),
      matches(
        new RegExp(`${(f.summary.occupancy_rate * 100).toFixed(1).replace('.', '\\.')}%`),
        'give the occupancy',
      ),
      money(f.summary.rent_roll_monthly_pence, 'the rent roll'),
      money(f.summary.arrears_pence, 'the arrears'),
      count(f.summary.open_deals, 'open deals', /deal/),
    ],
  },
  {
    id: 'rent-highest',
    group: 'rent',
    say: 'Which property has the highest rent?',
    expect: (f) => {
      const monthly = (p: (typeof f.properties)[number]) => {
        const t = p.property.current_tenancy;
        if (!t) return 0;
        return t.rent_frequency === 'weekly'
          ? (t.rent_pence * 52) / 12
          : t.rent_frequency === 'annually'
            ? t.rent_pence / 12
            : t.rent_pence;
      };
      const top = [...f.properties].sort((a, b) => monthly(b) - monthly(a))[0]!;
      return [mentions([top.ref]), money(top.property.current_tenancy!.rent_pence, 'its rent')];
    },
  },

  {
    id: 'daily-briefing',
    group: 'rent',
    say: 'Give me my daily briefing',
    expect: (f) => {
      const overdue = f.openDeals.filter((d) => d.next_action_due && d.next_action_due < f.today);
      return [
        mentions(arrears(f).map((a) => a.ref)),
        mentions(dueWithin(f, 7).map((i) => i.ref)),
        mentions(expiredRefs(f, 'gas_safety')),
        ...overdue.map((d) => says(dealFragment(d.title), `the overdue deal "${d.title}"`)),
        count(emailsNeedingReply(f.emails24, f.emails168).length, 'emails awaiting a reply'),
      ];
    },
  },

  // ---- deals ---------------------------------------------------------------------------------------------
  {
    id: 'deals-open',
    group: 'deals',
    say: 'What deals are open?',
    expect: (f) => [
      ...f.openDeals.map((d) => says(dealFragment(d.title), `the deal "${d.title}"`)),
      ...f.deals
        .filter((d) => d.status !== 'open')
        .map((d) => saysNot(dealFragment(d.title), `that deal is ${d.status}`)),
      count(f.openDeals.length, 'the number of open deals'),
      table(),
    ],
  },
  {
    id: 'deals-overdue-actions',
    group: 'deals',
    say: 'Which deal actions are overdue?',
    expect: (f) => {
      const overdue = f.openDeals.filter((d) => d.next_action_due && d.next_action_due < f.today);
      const fine = f.openDeals.filter((d) => !overdue.includes(d));
      return [
        ...overdue.map((d) => says(dealFragment(d.title), `the overdue deal "${d.title}"`)),
        ...overdue.map((d) => date(d.next_action_due!, `the action date of "${d.title}"`)),
        ...fine.map((d) => saysNot(dealFragment(d.title), `its next action is not overdue`)),
      ];
    },
  },
  {
    id: 'deals-next-actions',
    group: 'deals',
    say: 'What are the next actions on my deals?',
    expect: (f) => [
      ...f.openDeals
        .filter((d) => d.next_action_due)
        .map((d) => date(d.next_action_due!, `the action date of "${d.title}"`)),
      ...f.openDeals.map((d) => says(dealFragment(d.title), `the deal "${d.title}"`)),
    ],
  },
  {
    id: 'deals-pipeline',
    group: 'deals',
    say: "What's the value of my pipeline?",
    expect: (f) => [money(f.summary.pipeline_value_pence, 'the pipeline value')],
  },
  {
    id: 'deals-one',
    group: 'deals',
    say: "What's happening with the Chesterton Road refinance?",
    expect: (f) => {
      const d = f.deals.find((x) => x.title.includes('Chesterton Road'))!;
      const ref = refOfDeal(f, d);
      return [
        ...(ref ? [mentions([ref])] : []),
        date(d.next_action_due!, 'the next action date'),
        matches(/gas safety/i, 'give the next action'),
        money(d.value_pence!, 'the value'),
        ...f.deals
          .filter((x) => x.id !== d.id)
          .map((x) => saysNot(dealFragment(x.title), 'only the Chesterton Road refinance was asked about')),
      ];
    },
  },
  {
    id: 'deals-closed',
    group: 'deals',
    say: 'Which deals have we won or lost?',
    expect: (f) => [
      ...f.deals
        .filter((d) => d.status !== 'open')
        .map((d) => says(dealFragment(d.title), `the ${d.status} deal "${d.title}"`)),
      ...f.openDeals.map((d) => saysNot(dealFragment(d.title), 'that deal is still open')),
    ],
  },

  // ---- email ---------------------------------------------------------------------------------------------
  {
    id: 'email-needs-reply',
    group: 'email',
    say: 'Which emails need a reply?',
    expect: (f) => {
      const need = emailsNeedingReply(f.emails24, f.emails168);
      return [
        count(need.length, 'emails needing a reply'),
        ...need.map((e) => says(e.subject, `the subject "${e.subject}"`)),
      ];
    },
  },
  {
    id: 'email-arrears-week',
    group: 'email',
    say: 'Any emails about arrears this week?',
    expect: (f) => {
      const arr = f.emails168.filter((e) => e.category === 'arrears' && e.direction === 'inbound');
      const refs = [
        ...new Set(
          arr
            .map((e) => f.properties.find((p) => p.id === e.linked.property_id)?.ref)
            .filter((r): r is string => !!r),
        ),
      ];
      const otherSubjects = new Set(
        f.emails168.filter((e) => e.category !== 'arrears').map((e) => e.subject),
      );
      return [
        mentions(refs),
        ...arr.map((e) => says(e.subject, `the subject "${e.subject}"`)),
        ...[...otherSubjects].map((subject) => saysNot(subject, 'that email is not about arrears')),
      ];
    },
  },
  {
    id: 'email-council',
    group: 'email',
    say: 'What has the council sent us this week?',
    expect: (f) => {
      const council = f.emails168.filter((e) => e.category === 'council');
      const refs = [
        ...new Set(
          council
            .map((e) => f.properties.find((p) => p.id === e.linked.property_id)?.ref)
            .filter((r): r is string => !!r),
        ),
      ];
      const otherSubjects = new Set(
        f.emails168.filter((e) => e.category !== 'council').map((e) => e.subject),
      );
      return [
        mentions(refs),
        ...council.map((e) => says(e.subject, `the subject "${e.subject}"`)),
        ...[...otherSubjects].map((subject) => saysNot(subject, 'that email is not from the council')),
      ];
    },
  },

  // ---- memory --------------------------------------------------------------------------------------------
  {
    id: 'memory-first-question',
    group: 'memory',
    say: ['Which gas safety certificates have expired?', 'What about MAN-004?', 'What did I ask you first?'],
    expect: () => [
      says('Which gas safety certificates have expired', 'the first question'),
      saysNot('What about MAN-004', 'that was the second question, not the first'),
    ],
  },
  {
    id: 'memory-name',
    group: 'memory',
    say: ['Hi, my name is Priya.', 'Which properties have arrears?', "What's my name?"],
    expect: () => [says('Priya', 'the name given')],
  },
  {
    id: 'memory-follow-up-rent',
    group: 'memory',
    say: ['Tell me about MAN-004', "What's the rent there?"],
    expect: (f) => [
      mentions(['MAN-004']),
      money(f.byRef('MAN-004').property.current_tenancy!.rent_pence, 'the rent'),
    ],
  },
  {
    id: 'memory-and-eicrs',
    group: 'memory',
    say: ['Which gas safety certificates have expired?', 'And EICRs?'],
    expect: (f) => [
      mentions(expiredRefs(f, 'eicr')),
      mentionsNone(cleanRefs(f, 'eicr'), 'have a valid EICR'),
      label('eicr'),
    ],
  },

  // ---- small talk ----------------------------------------------------------------------------------------
  {
    id: 'smalltalk-thanks',
    group: 'small talk',
    say: 'thanks',
    expect: (f) => [
      matches(/welcome|pleasure|no problem|glad|any time|anytime/i, 'acknowledge the thanks'),
      mentionsNone(f.refs, 'were not asked about'),
      matchesNot(/[\s\S]{400}/, 'a thank-you needs a short answer'),
    ],
  },
  {
    id: 'smalltalk-hello',
    group: 'small talk',
    say: 'hello',
    expect: (f) => [
      matches(/\b(hello|hi|good (morning|afternoon|evening))\b/i, 'greet back'),
      mentionsNone(f.refs, 'were not asked about'),
    ],
  },
  {
    id: 'smalltalk-who',
    group: 'small talk',
    say: 'who are you?',
    expect: () => [
      says('Porter', 'its name'),
      matchesNot(/gateway|provider|skill pack/i, 'a property manager should not see internal words'),
    ],
  },
  {
    id: 'smalltalk-help',
    group: 'small talk',
    say: 'What can you do?',
    expect: () => [
      matches(/compliance|certificate/i, 'mention compliance'),
      matches(/arrears/i, 'mention arrears'),
      matchesNot(
        /gateway|provider|skill pack|tenant slug/i,
        'a property manager should not see internal words',
      ),
    ],
  },

  // ---- things that do not exist --------------------------------------------------------------------------
  {
    id: 'missing-street',
    group: 'not found',
    say: 'tell me about 14 Oak Street',
    expect: (f) => notFound(f.refs),
  },
  { id: 'missing-ref', group: 'not found', say: 'XYZ-999', expect: (f) => notFound(f.refs) },
  { id: 'missing-postcode', group: 'not found', say: 'what about M1 1AA?', expect: (f) => notFound(f.refs) },
  {
    id: 'missing-ref-same-branch',
    group: 'not found',
    say: 'What needs attention at MAN-099?',
    expect: (f) => notFound(f.refs),
  },
  { id: 'missing-town', group: 'not found', say: 'Summarise Birmingham', expect: (f) => notFound(f.refs) },
];
