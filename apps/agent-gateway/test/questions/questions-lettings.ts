import {
  anyOf,
  count,
  date,
  matches,
  mentions,
  mentionsNone,
  money,
  says,
  saysNot,
  table,
} from './checks.ts';
import {
  arrears,
  dueWithin,
  emailsNeedingReply,
  expiredRefs,
  refOfDeal,
  tenanciesEnding,
  tenanciesEndingAfter,
  voidRefs,
} from './demo-facts.ts';
import { dealFragment, others, type Question } from './expectations.ts';

// Money and lettings: arrears, voids, tenancies ending, rent roll, deals and their next actions, email needing a reply.

export const LETTINGS_QUESTIONS: Question[] = [
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
      return [
        mentions(voidRefs(f)),
        mentionsNone(full, 'are fully let'),
        ...(voidRefs(f).length > 1 ? [table()] : []),
      ];
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
        ...(need.length > 1 ? [table()] : []),
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
];
