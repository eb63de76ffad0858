import type { ComplianceType } from '@pa/contracts';
import type { Prisma } from '../lib/db.ts';
import { defaultExpiry, renewalExpiry } from '../features/compliance/compliance-rules.ts';
import { addDays, fromDateString } from '../lib/clock.ts';
import { addMonths, type DemoCalendar, digits, within } from './demo-calendar.ts';
import {
  DEMO_PROPERTIES,
  type ItemPlan,
  type PropertySpec,
  type Region,
  regionOf,
  type TenancySpec,
} from './demo-properties.ts';

// Turns the property specs into rows. Rows refer to their property by `ref`; the seeder swaps in ids.

export type PropertyRow = Omit<Prisma.PropertyCreateManyInput, 'tenantId'>;
export type TenancyRow = Omit<Prisma.TenancyCreateManyInput, 'tenantId' | 'propertyId'> & { ref: string };
export type ComplianceRow = Omit<Prisma.ComplianceItemCreateManyInput, 'tenantId' | 'propertyId'> & {
  ref: string;
  type: ComplianceType;
};

interface Contractor {
  name: string;
  company: string;
  scheme: string | null;
  registrationNumber: string | null;
}

interface Trades {
  gas: Contractor;
  electrical: Contractor;
  epc: Contractor;
  water: Contractor;
  fire: Contractor;
  alarms: Contractor;
}

export const TRADES: Record<Region, Trades> = {
  MAN: {
    gas: {
      name: 'Dave Kershaw',
      company: 'Kershaw Heating Ltd',
      scheme: 'Gas Safe',
      registrationNumber: '548213',
    },
    electrical: {
      name: 'Lee Whitworth',
      company: 'Sparks North West Ltd',
      scheme: 'NICEIC',
      registrationNumber: '604217',
    },
    epc: {
      name: 'Helen Byrne',
      company: 'Mancunian Energy Assessors',
      scheme: 'Elmhurst Energy',
      registrationNumber: 'EES/020145',
    },
    water: {
      name: 'Craig Dunn',
      company: 'AquaSafe Compliance Ltd',
      scheme: null,
      registrationNumber: null,
    },
    fire: {
      name: 'Paul Hargreaves',
      company: 'Northern Fire Safety Ltd',
      scheme: 'IFE',
      registrationNumber: 'IFE-FRA-1042',
    },
    alarms: {
      name: 'Sophie Lund',
      company: 'Demo Lettings (check-in clerk)',
      scheme: null,
      registrationNumber: null,
    },
  },
  BRS: {
    gas: {
      name: 'Tom Prideaux',
      company: 'Avon Gas Services',
      scheme: 'Gas Safe',
      registrationNumber: '611094',
    },
    electrical: {
      name: 'Rhys Morgan',
      company: 'Severnside Electrical Ltd',
      scheme: 'NAPIT',
      registrationNumber: '38716',
    },
    epc: {
      name: 'Jo Castle',
      company: 'West Country EPCs',
      scheme: 'Stroma Certification',
      registrationNumber: 'STRO031876',
    },
    water: {
      name: 'Ian Marsh',
      company: 'Clearwater Risk Ltd',
      scheme: null,
      registrationNumber: null,
    },
    fire: {
      name: 'Andrea Blake',
      company: 'Bristol Fire Risk Ltd',
      scheme: 'FRACS',
      registrationNumber: 'FRACS-2231',
    },
    alarms: {
      name: 'Will Tanner',
      company: 'Demo Lettings (check-in clerk)',
      scheme: null,
      registrationNumber: null,
    },
  },
  LDS: {
    gas: {
      name: 'Imran Bashir',
      company: 'Aire Valley Heating',
      scheme: 'Gas Safe',
      registrationNumber: '593377',
    },
    electrical: {
      name: 'Gary Holt',
      company: 'Holt Electrical Services',
      scheme: 'NICEIC',
      registrationNumber: '611580',
    },
    epc: {
      name: 'Nadia Akhtar',
      company: 'Yorkshire EPC Surveys',
      scheme: 'Quidos',
      registrationNumber: 'QUID207411',
    },
    water: {
      name: 'Mark Sutcliffe',
      company: 'Pennine Water Hygiene',
      scheme: null,
      registrationNumber: null,
    },
    fire: {
      name: 'Karen Lister',
      company: 'Ridings Fire Safety',
      scheme: 'IFE',
      registrationNumber: 'IFE-FRA-0877',
    },
    alarms: {
      name: 'Amy Firth',
      company: 'Demo Lettings (check-in clerk)',
      scheme: null,
      registrationNumber: null,
    },
  },
  LON: {
    gas: {
      name: 'Kwame Mensah',
      company: 'Capital Boiler Care Ltd',
      scheme: 'Gas Safe',
      registrationNumber: '702158',
    },
    electrical: {
      name: 'Stefan Novak',
      company: 'Metro Electrical Testing Ltd',
      scheme: 'NICEIC',
      registrationNumber: '598342',
    },
    epc: {
      name: 'Ruth Okonjo',
      company: 'London Energy Surveys',
      scheme: 'Elmhurst Energy',
      registrationNumber: 'EES/031572',
    },
    water: {
      name: 'Dean Foster',
      company: 'Thames Water Hygiene Ltd',
      scheme: null,
      registrationNumber: null,
    },
    fire: {
      name: 'Marcus Reid',
      company: 'Firecheck London Ltd',
      scheme: 'BAFE SP205',
      registrationNumber: 'BAFE-SP205-1193',
    },
    alarms: {
      name: 'Leah Morris',
      company: 'Demo Lettings (check-in clerk)',
      scheme: null,
      registrationNumber: null,
    },
  },
};

const HMO_LICENCE_PREFIX: Record<Region, string> = {
  MAN: 'HMO/MCC',
  BRS: 'BCC/ADD',
  LDS: 'LCC/SL',
  LON: 'LBN/HMO',
};

// Days since issue that put each type's item in each state today. Derived from the rule windows (gas safety
// lasts 12 months and is "expiring soon" in its last 60 days, an EICR 5 years and 90 days...).
const AGE: Partial<Record<ComplianceType, Record<'valid' | 'soon' | 'expired', [number, number]>>> = {
  gas_safety: { valid: [45, 250], soon: [310, 345], expired: [372, 410] },
  eicr: { valid: [150, 1400], soon: [1745, 1790], expired: [1860, 1990] },
  epc: { valid: [200, 2900], soon: [3575, 3615], expired: [3700, 3800] },
  hmo_licence: {
    valid: [150, 1200],
    soon: [1745, 1790],
    expired: [1850, 1900],
  },
  legionella_risk_assessment: {
    valid: [60, 600],
    soon: [680, 715],
    expired: [760, 900],
  },
  fire_risk_assessment: {
    valid: [40, 250],
    soon: [310, 345],
    expired: [380, 420],
  },
  pat: { valid: [30, 250], soon: [340, 360], expired: [380, 420] },
};

function issuedDaysAgo(spec: PropertySpec, type: ComplianceType, plan: ItemPlan): number {
  if (typeof plan === 'object') return plan.issuedDaysAgo;
  const ages = AGE[type];
  if (!ages) throw new Error(`demo: no ages for ${type}`);
  const state = plan === 'valid' || plan === 'soon' || plan === 'expired' ? plan : 'valid';
  const [min, max] = ages[state];
  return within(`${spec.ref}:${type}`, min, max);
}

function contractorFields(c: Contractor) {
  return {
    contractorName: c.name,
    contractorCompany: c.company,
    contractorScheme: c.scheme,
    contractorRegNo: c.registrationNumber,
  };
}

function tenancyStart(cal: DemoCalendar, t: TenancySpec): string {
  return cal.iso(-t.startedDaysAgo);
}

/** Five weeks' rent, the most a deposit may be (Tenant Fees Act 2019), rounded down to whole pounds. */
function depositFor(t: TenancySpec): number {
  const weekly = t.frequency === 'weekly' ? t.rentPence : (t.rentPence * 12) / 52;
  return Math.floor((weekly * 5) / 100) * 100;
}

interface DepositDates {
  receivedOffset: number;
  protectedOffset: number | null;
}

function depositDates(spec: PropertySpec, t: TenancySpec): DepositDates {
  const start = -t.startedDaysAgo;
  if (spec.compliance.deposit_protection === 'unprotected')
    return { receivedOffset: start, protectedOffset: null };
  const receivedOffset = start - within(`${spec.ref}:deposit-in`, 2, 7);
  return {
    receivedOffset,
    protectedOffset: receivedOffset + within(`${spec.ref}:deposit-protect`, 3, 20),
  };
}

// A tenancy agreed for a fixed term keeps its 12-month term as history (since 1 May 2026 it ends nothing: the
// bridge reads every current tenancy as periodic); it ends on a notice's end, a possession date, or when it ended.
function tenancyRow(cal: DemoCalendar, spec: PropertySpec, t: TenancySpec): TenancyRow {
  const start = tenancyStart(cal, t);
  const ended = t.endedDaysAgo !== undefined;
  let endDate: Date | null = null;
  if (ended) endDate = cal.date(-t.endedDaysAgo!);
  else if (t.endsInDays !== undefined) endDate = cal.date(t.endsInDays);
  const underNotice = t.endsInDays !== undefined || t.possessionInDays !== undefined;
  let noticeGivenOn: Date | null = null;
  if (t.noticeGivenDaysAgo !== undefined) noticeGivenOn = cal.date(-t.noticeGivenDaysAgo);
  // a tenant's notice is at least two months
  else if (t.endsInDays !== undefined) noticeGivenOn = fromDateString(addMonths(cal.iso(t.endsInDays), -2));
  const deposit = t.deposit ? depositDates(spec, t) : null;
  return {
    ref: spec.ref,
    status: ended ? 'ended' : underNotice ? 'notice_given' : 'active',
    startDate: cal.date(-t.startedDaysAgo),
    endDate,
    fixedTermEndDate: t.periodic ? null : fromDateString(addDays(addMonths(start, 12), -1)),
    noticeGivenOn,
    possessionDate: t.possessionInDays !== undefined ? cal.date(t.possessionInDays) : null,
    isPeriodic: t.periodic ?? false,
    rentPence: t.rentPence,
    rentFrequency: t.frequency,
    lastRentIncreaseOn: t.lastIncreaseDaysAgo !== undefined ? cal.date(-t.lastIncreaseDaysAgo) : null,
    depositPence: t.deposit ? depositFor(t) : null,
    depositScheme: t.deposit,
    depositReceivedAt: deposit ? cal.date(deposit.receivedOffset) : null,
    depositProtectedAt: deposit?.protectedOffset != null ? cal.date(deposit.protectedOffset) : null,
    prescribedInfoServedAt: deposit?.protectedOffset != null ? cal.date(deposit.protectedOffset + 1) : null,
  };
}

function item(
  cal: DemoCalendar,
  spec: PropertySpec,
  type: ComplianceType,
  plan: ItemPlan,
  trades: Trades,
): ComplianceRow {
  const key = `${spec.ref}:${type}`;
  const base = { ref: spec.ref, type, isStatutory: type !== 'pat' };
  const issued = (days: number) => ({
    iso: cal.iso(-days),
    date: cal.date(-days),
  });
  // when the tenant was given a copy, unless the demo shows one not given
  const servedAt = (s: PropertySpec, t: ComplianceType, offset: number) =>
    s.copyNotServed?.includes(t as 'gas_safety' | 'eicr') ? null : cal.date(offset);
  const expiryOf = (iso: string) => {
    const e = defaultExpiry(type, iso);
    return e ? new Date(`${e}T00:00:00Z`) : null;
  };

  switch (type) {
    case 'gas_safety': {
      const early = plan === 'early_renewal';
      const days = early ? within(key, 20, 50) : issuedDaysAgo(spec, type, plan);
      const at = issued(days);
      // done this many days before the last record's deadline, inside the 2-month window
      const ahead = within(`${key}:ahead`, 10, 50);
      const expiry = early ? renewalExpiry(type, at.iso, addDays(at.iso, ahead)) : null;
      return {
        ...base,
        referenceNumber: `CP12-${trades.gas.registrationNumber}-${digits(key, 5)}`,
        issueDate: at.date,
        expiryDate: expiry ? fromDateString(expiry) : expiryOf(at.iso),
        outcome: 'pass',
        ...contractorFields(trades.gas),
        servedToTenantAt: servedAt(spec, type, -days + within(`${key}:served`, 1, 6)),
        notes:
          plan === 'expired'
            ? 'Annual check overdue: engineer could not get access on the booked date; tenant to be contacted.'
            : early
              ? `Checked ${ahead} days before the last record's deadline, so the anniversary is kept. Boiler, hob and flue safe to use.`
              : 'Boiler, hob and flue checked; all appliances safe to use.',
      };
    }
    case 'eicr': {
      if (plan === 'remedial') {
        const days = within(key, 10, 16);
        const at = issued(days);
        return {
          ...base,
          referenceNumber: `EICR-${cal.today.slice(0, 4)}-${digits(key, 5)}`,
          issueDate: at.date,
          expiryDate: expiryOf(at.iso),
          outcome: 'unsatisfactory',
          eicrC1: 0,
          eicrC2: spec.hmo ? 1 : 2,
          eicrC3: 3,
          eicrFi: spec.hmo ? 1 : 0,
          remedialDueDate: cal.date(-days + 28),
          ...contractorFields(trades.electrical),
          servedToTenantAt: cal.date(-days + 3),
          notes: spec.hmo
            ? 'C2: no RCD protection on the first-floor socket circuit. FI: loft lighting circuit to be traced. Remedials within 28 days.'
            : 'C2: no RCD protection on upstairs sockets; C2: cracked kitchen socket-outlet. Remedials within 28 days.',
        };
      }
      const at = issued(issuedDaysAgo(spec, type, plan));
      return {
        ...base,
        referenceNumber: `EICR-${at.iso.slice(0, 4)}-${digits(key, 5)}`,
        issueDate: at.date,
        expiryDate: expiryOf(at.iso),
        outcome: 'satisfactory',
        eicrC1: 0,
        eicrC2: 0,
        eicrC3: within(`${key}:c3`, 0, 4),
        eicrFi: 0,
        ...contractorFields(trades.electrical),
        servedToTenantAt: servedAt(
          spec,
          type,
          -issuedDaysAgo(spec, type, plan) + within(`${key}:served`, 2, 10),
        ),
        notes: null,
      };
    }
    case 'epc': {
      const days = plan === 'band_f' ? 1400 : issuedDaysAgo(spec, type, plan);
      const at = issued(days);
      return {
        ...base,
        referenceNumber: [0, 1, 2, 3, 4].map((i) => digits(`${key}:${i}`, 4)).join('-'),
        issueDate: at.date,
        expiryDate: expiryOf(at.iso),
        rating: spec.epc.rating,
        exemptionValidUntil: plan === 'band_f' ? cal.date(-30) : null,
        ...contractorFields(trades.epc),
        notes:
          plan === 'band_f'
            ? 'Band F. The PRS exemption (all relevant improvements made) has lapsed: re-register or improve to band E.'
            : null,
      };
    }
    case 'smoke_co_alarms': {
      const start = spec.tenancy ? -spec.tenancy.startedDaysAgo : -within(key, 100, 300);
      const offset = plan === 'not_checked' ? start - within(key, 300, 480) : start - within(key, 0, 5);
      return {
        ...base,
        issueDate: cal.date(offset),
        outcome: 'pass',
        ...contractorFields(trades.alarms),
        notes: spec.hasGas
          ? 'Smoke alarm on each storey and CO alarm by the boiler tested and working.'
          : 'Smoke alarm on each storey tested and working; no fixed combustion appliances.',
      };
    }
    case 'hmo_licence': {
      const at = issued(issuedDaysAgo(spec, type, plan));
      const hmo = spec.hmo!;
      return {
        ...base,
        referenceNumber: `${HMO_LICENCE_PREFIX[regionOf(spec.ref)]}/${at.iso.slice(0, 4)}/${digits(key, 4)}`,
        issueDate: at.date,
        expiryDate: expiryOf(at.iso),
        notes: `${hmo.licence[0]!.toUpperCase()}${hmo.licence.slice(1)} licence from ${spec.localAuthority} for at most ${hmo.maxOccupants} occupants.`,
      };
    }
    case 'legionella_risk_assessment':
    case 'fire_risk_assessment':
    case 'pat': {
      const days = issuedDaysAgo(spec, type, plan);
      const at = issued(days);
      const who =
        type === 'legionella_risk_assessment'
          ? trades.water
          : type === 'pat'
            ? trades.electrical
            : trades.fire;
      const prefix = type === 'legionella_risk_assessment' ? 'LRA' : type === 'pat' ? 'PAT' : 'FRA';
      return {
        ...base,
        referenceNumber: `${prefix}-${digits(key, 6)}`,
        issueDate: at.date,
        nextDueDate: expiryOf(at.iso),
        outcome: type === 'pat' ? 'pass' : null,
        ...contractorFields(who),
        notes:
          type === 'legionella_risk_assessment'
            ? 'Low risk: combi boiler, no stored water; shower heads to be descaled at each change of tenant.'
            : type === 'pat'
              ? 'Landlord-supplied appliances tested (not a legal requirement for this let).'
              : null,
      };
    }
    case 'deposit_protection': {
      const t = spec.tenancy!;
      const dates = depositDates(spec, t);
      const scheme = t.deposit!;
      if (dates.protectedOffset === null) {
        return {
          ...base,
          nextDueDate: cal.date(dates.receivedOffset + 30),
          notes: `Deposit received; not yet registered with ${SCHEME_NAME[scheme]}. Must be protected and prescribed information served within 30 days of receipt.`,
        };
      }
      return {
        ...base,
        referenceNumber: `${SCHEME_REF[scheme]}${digits(key, 7)}`,
        issueDate: cal.date(dates.protectedOffset),
        servedToTenantAt: cal.date(dates.protectedOffset + 1),
        notes: `Protected with ${SCHEME_NAME[scheme]}; prescribed information served.`,
      };
    }
    case 'right_to_rent':
      return {
        ...base,
        referenceNumber: `W${digits(key, 2)}-K${digits(`${key}:2`, 2)}-M${digits(`${key}:3`, 2)}`,
        issueDate: cal.date(-215),
        nextDueDate: cal.date(150),
        outcome: 'pass',
        notes:
          'Time-limited permission checked online with a share code; follow-up check due before it ends.',
      };
  }
}

const SCHEME_NAME = {
  tds: 'TDS (Insured)',
  dps: 'DPS (Custodial)',
  mydeposits: 'mydeposits (Insured)',
} as const;
const SCHEME_REF = { tds: 'TDS-', dps: 'DPS-', mydeposits: 'MYD-' } as const;

export interface Portfolio {
  properties: PropertyRow[];
  tenancies: TenancyRow[];
  items: ComplianceRow[];
}

export function buildPortfolio(cal: DemoCalendar): Portfolio {
  const properties: PropertyRow[] = [];
  const tenancies: TenancyRow[] = [];
  const items: ComplianceRow[] = [];
  for (const spec of DEMO_PROPERTIES) {
    const trades = TRADES[regionOf(spec.ref)];
    const propertyItems = (Object.entries(spec.compliance) as Array<[ComplianceType, ItemPlan]>).map(
      ([type, plan]) => item(cal, spec, type, plan, trades),
    );
    items.push(...propertyItems);
    const epcItem = propertyItems.find((i) => i.type === 'epc');
    const occupied = spec.units?.occupied ?? (spec.tenancy ? 1 : 0);
    properties.push({
      ref: spec.ref,
      line1: spec.line1,
      line2: spec.line2,
      town: spec.town,
      county: spec.county,
      postcode: spec.postcode,
      uprn: spec.uprn,
      propertyType: spec.type,
      bedrooms: spec.bedrooms,
      bathrooms: spec.bathrooms,
      tenure: spec.tenure,
      furnishing: spec.furnishing,
      councilTaxBand: spec.councilTaxBand,
      localAuthority: spec.localAuthority,
      isHmo: spec.hmo !== undefined,
      hmoLicenceType: spec.hmo?.licence ?? null,
      maxOccupants: spec.hmo?.maxOccupants ?? null,
      hasGas: spec.hasGas,
      // The headline EPC mirrors the certificate on file; none on file means none shown.
      epcRating: epcItem ? spec.epc.rating : null,
      epcScore: epcItem ? spec.epc.score : null,
      epcValidUntil: (epcItem?.expiryDate as Date | null | undefined) ?? null,
      lettingStatus: spec.lettingStatus,
      managementType: spec.managementType,
      unitsTotal: spec.units?.total ?? 1,
      unitsOccupied: occupied,
      arrearsPence: spec.arrearsPence ?? 0,
    });
    if (spec.previousTenancy) tenancies.push(tenancyRow(cal, spec, spec.previousTenancy));
    if (spec.tenancy) tenancies.push(tenancyRow(cal, spec, spec.tenancy));
  }
  return { properties, tenancies, items };
}
