import { claimedCount, count, date, matches, mentions, mentionsNone, says, table } from './checks.ts';
import { cleanRefs, daysBetween, dueAfter, dueWithin, expiredRefs } from './demo-facts.ts';
import { endOfMonth, endOfYear, onlyWithDate, others, type Question, typeWindow } from './expectations.ts';

// Compliance by type (gas, EICR, EPC, HMO licence, ...) and by window (next N days, this month, this year, overdue, missing).

export const COMPLIANCE_QUESTIONS: Question[] = [
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
        // issue 12: the old answer said 5 more were expiring soon and 20 properties not fully valid (6 and 23)
        claimedCount(
          /(\d+) (?:more |further )?(?:gas )?(?:items?|certificates?) (?:are )?expiring soon/i,
          f.items.filter((i) => i.type === 'gas_safety' && i.status === 'expiring_soon').length,
          'the number of gas certificates expiring soon',
        ),
        claimedCount(
          /(\d+) properties whose compliance is not fully valid/i,
          f.properties.filter((p) => p.compliance.status !== 'valid').length,
          'the number of properties not fully valid',
        ),
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
    id: 'gas-last-month',
    group: 'compliance',
    say: 'Which gas certificates expired last month?',
    expect: (f) => {
      const [y, m] = f.today.split('-').map(Number) as [number, number];
      const first = new Date(Date.UTC(y, m - 2, 1)).toISOString().slice(0, 10);
      const last = new Date(Date.UTC(y, m - 1, 0)).toISOString().slice(0, 10);
      const gas = f.items.filter((i) => i.type === 'gas_safety' && i.status === 'expired');
      const inMonth = gas.filter((i) => i.due! >= first && i.due! <= last);
      return [
        mentions(inMonth.map((i) => i.ref)),
        ...inMonth.map((i) => date(i.due!, `${i.ref}'s expiry`)),
        ...gas
          .filter((i) => !inMonth.includes(i))
          .map((i) => onlyWithDate(i.ref, i.due!, 'its certificate expired in another month')),
        mentionsNone(cleanRefs(f, 'gas_safety'), 'have a valid gas certificate'),
        ...(inMonth.length ? [] : [matches(/\bno\b|\bnone\b|nothing/i, 'say none expired last month')]),
        // a list of every expired certificate is not an answer about last month: it must say which month it covers
        matches(
          new RegExp(
            `last month|${new Date(`${first}T00:00:00Z`).toLocaleString('en-GB', { month: 'long', timeZone: 'UTC' })}`,
            'i',
          ),
          'say which month it covers',
        ),
      ];
    },
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
        matches(new RegExp(`this year|${f.today.slice(0, 4)}`), 'say which year it covers'),
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
      return [mentions(refs), mentionsNone(others(f, refs), 'have nothing missing'), table()];
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
];
