import { daysBetween, toDateString } from '../lib/clock.ts';
import type { Prisma } from '../lib/db.ts';
import { addMonths, type DemoCalendar, within } from './demo-calendar.ts';
import type { Portfolio } from './demo-portfolio.ts';
import { DEMO_PROPERTIES, type PropertySpec } from './demo-properties.ts';

export type FinanceRow = Omit<Prisma.FinancialLogCreateManyInput, 'tenantId' | 'propertyId'> & {
  ref: string;
};

const WINDOW_DAYS = 90;
const VAT_RATE = 0.2;
const AGENCY = 'Demo Lettings Ltd';
const FEE_RATE: Record<PropertySpec['managementType'], number> = {
  managed: 0.12,
  rent_collection: 0.08,
  let_only: 0,
};

// What each kind of certificate costs, net of VAT; sole-trader assessors are not VAT registered.
const CERT_FEES: Record<string, { net: number; vat: boolean }> = {
  gas_safety: { net: 6_500, vat: true },
  eicr: { net: 16_500, vat: true },
  epc: { net: 7_500, vat: false },
  legionella_risk_assessment: { net: 9_500, vat: true },
  fire_risk_assessment: { net: 22_000, vat: true },
  pat: { net: 6_000, vat: true },
};

const REPAIRS: Array<{
  ref: string;
  daysAgo: number;
  net: number;
  vat: boolean;
  payee: string;
  reference: string;
}> = [
  {
    ref: 'LON-003',
    daysAgo: 27,
    net: 14_500,
    vat: true,
    payee: 'West London Plumbing Ltd',
    reference: 'WLP-3391',
  },
  {
    ref: 'LDS-003',
    daysAgo: 45,
    net: 42_000,
    vat: true,
    payee: 'Dry-Rite Damp Solutions',
    reference: 'DR-2207',
  },
  {
    ref: 'BRS-004',
    daysAgo: 60,
    net: 26_000,
    vat: true,
    payee: 'Bristol Fire Risk Ltd',
    reference: 'BFR-1180',
  },
  {
    ref: 'MAN-003',
    daysAgo: 33,
    net: 9_500,
    vat: false,
    payee: 'Fallowfield Property Maintenance',
    reference: 'FPM-0412',
  },
  {
    ref: 'LON-006',
    daysAgo: 8,
    net: 8_500,
    vat: true,
    payee: 'Firecheck London Ltd',
    reference: 'FCL-7764',
  },
  {
    ref: 'MAN-002',
    daysAgo: 70,
    net: 6_500,
    vat: false,
    payee: 'Chorlton Handyman Services',
    reference: 'CHS-118',
  },
  {
    ref: 'LON-001',
    daysAgo: 52,
    net: 12_000,
    vat: true,
    payee: 'Capital Boiler Care Ltd',
    reference: 'CBC-50917',
  },
  {
    ref: 'BRS-001',
    daysAgo: 15,
    net: 9_000,
    vat: true,
    payee: 'Avon Drainage Services',
    reference: 'ADS-7720',
  },
  {
    ref: 'MAN-007',
    daysAgo: 30,
    net: 24_000,
    vat: true,
    payee: 'Sparkle End of Tenancy Cleaning',
    reference: 'SET-2291',
  },
  {
    ref: 'MAN-007',
    daysAgo: 22,
    net: 115_000,
    vat: false,
    payee: 'J. Whitehead Decorating',
    reference: 'JWD-064',
  },
];

const SERVICE_CHARGES: Record<string, { net: number; payee: string }> = {
  'MAN-001': { net: 48_500, payee: 'Albion Works Management Co. Ltd' },
  'MAN-005': { net: 31_000, payee: 'Palatine Road (48) Residents Ltd' },
  'MAN-006': { net: 52_000, payee: 'Clippers Quay Management Ltd' },
  'BRS-001': { net: 29_000, payee: 'Cotham Road (18) Management Ltd' },
  'BRS-003': { net: 61_000, payee: 'Finzels Reach Estate Management' },
  'LDS-001': { net: 44_000, payee: 'Candle House Management Ltd' },
  'LON-001': { net: 57_500, payee: 'Camberwell Grove (27) Freehold Ltd' },
  'LON-002': { net: 79_000, payee: 'Dalston Square Estate Management' },
  'LON-003': { net: 66_000, payee: 'Chesterton Road (18) Management Ltd' },
  'LON-005': { net: 38_000, payee: 'Kingsland Road (112) Management Ltd' },
  'LON-007': { net: 41_000, payee: 'Hoe Street (45) RTM Co. Ltd' },
};

function gross(net: number, vat: number) {
  return { netPence: net, vatPence: vat, grossPence: net + vat };
}

// Three months of ledger entries: rent as it came in (short where the tenant is in arrears), the agency's
// fees on it, certificates done in the period, repairs, service charges and the void's costs.
export function buildFinance(cal: DemoCalendar, portfolio: Portfolio): FinanceRow[] {
  const rows: FinanceRow[] = [];
  const inWindow = (iso: string) => {
    const age = daysBetween(iso, cal.today);
    return age >= 0 && age < WINDOW_DAYS;
  };

  for (const spec of DEMO_PROPERTIES) {
    const t = portfolio.tenancies.find((x) => x.ref === spec.ref && x.status !== 'ended');
    const feeRate = FEE_RATE[spec.managementType];
    if (t && feeRate > 0) {
      const start = toDateString(t.startDate as Date);
      const due: string[] = [];
      for (let k = 0; ; k++) {
        const d =
          t.rentFrequency === 'weekly' ? cal.iso(daysBetween(cal.today, start) + 7 * k) : addMonths(start, k);
        if (d > cal.today) break;
        if (inWindow(d)) due.push(d);
      }
      // Arrears are the most recent instalments not (fully) paid.
      let owed = spec.arrearsPence ?? 0;
      const paid = due.map((d) => ({ date: d, amount: t.rentPence }));
      for (let i = paid.length - 1; i >= 0 && owed > 0; i--) {
        const short = Math.min(owed, paid[i]!.amount);
        paid[i]!.amount -= short;
        owed -= short;
      }
      const payer = spec.tenancy?.tenant ?? 'Tenant';
      for (const p of paid) {
        if (p.amount <= 0) continue;
        rows.push({
          ref: spec.ref,
          date: new Date(`${p.date}T00:00:00Z`),
          direction: 'income',
          category: 'rent_received',
          ...gross(p.amount, 0),
          payeeOrPayer: payer,
          reference: `${spec.ref.replace('-', '')} RENT ${p.date}`,
        });
        const fee = Math.round(p.amount * feeRate);
        rows.push({
          ref: spec.ref,
          date: new Date(`${p.date}T00:00:00Z`),
          direction: 'expense',
          category: 'management_fee',
          ...gross(fee, Math.round(fee * VAT_RATE)),
          payeeOrPayer: AGENCY,
          reference: `MGT ${spec.ref} ${p.date.slice(0, 7)}`,
        });
      }
    }

    if (t?.depositReceivedAt && inWindow(toDateString(t.depositReceivedAt as Date))) {
      rows.push({
        ref: spec.ref,
        date: t.depositReceivedAt,
        direction: 'income',
        category: 'deposit_in',
        ...gross(t.depositPence ?? 0, 0),
        payeeOrPayer: spec.tenancy?.tenant ?? 'Tenant',
        reference: `DEP ${spec.ref}`,
      });
      const fee = 85_000;
      rows.push({
        ref: spec.ref,
        date: t.startDate,
        direction: 'expense',
        category: 'letting_fee',
        ...gross(fee, Math.round(fee * VAT_RATE)),
        payeeOrPayer: AGENCY,
        reference: `LET ${spec.ref}`,
      });
    }

    const ended = portfolio.tenancies.find((x) => x.ref === spec.ref && x.status === 'ended');
    if (ended?.endDate && ended.depositPence) {
      const deductions = 15_000;
      rows.push({
        ref: spec.ref,
        date: cal.date(-daysBetween(toDateString(ended.endDate as Date), cal.today) + 7),
        direction: 'expense',
        category: 'deposit_out',
        ...gross(ended.depositPence - deductions, 0),
        payeeOrPayer: spec.previousTenancy?.tenant ?? 'Former tenant',
        reference: `DEP RETURN ${spec.ref} (less £150.00 cleaning)`,
      });
    }

    const sc = SERVICE_CHARGES[spec.ref];
    if (sc) {
      rows.push({
        ref: spec.ref,
        date: cal.date(-within(`${spec.ref}:sc`, 5, 85)),
        direction: 'expense',
        category: 'service_charge',
        ...gross(sc.net, 0),
        payeeOrPayer: sc.payee,
        reference: `SC ${spec.ref} Q`,
      });
      if (spec.tenure === 'leasehold' && within(`${spec.ref}:gr`, 0, 1) === 1) {
        rows.push({
          ref: spec.ref,
          date: cal.date(-within(`${spec.ref}:gr-date`, 5, 85)),
          direction: 'expense',
          category: 'ground_rent',
          ...gross(12_500, 0),
          payeeOrPayer: sc.payee,
          reference: `GR ${spec.ref} half-year`,
        });
      }
    }
  }

  // Certificates issued in the period are paid for in the period.
  for (const item of portfolio.items) {
    const fee = CERT_FEES[item.type];
    const issued = item.issueDate instanceof Date ? toDateString(item.issueDate) : null;
    if (!fee || !issued || !inWindow(issued)) continue;
    rows.push({
      ref: item.ref,
      date: item.issueDate as Date,
      direction: 'expense',
      category: 'compliance_cert',
      ...gross(fee.net, fee.vat ? Math.round(fee.net * VAT_RATE) : 0),
      payeeOrPayer: item.contractorCompany ?? null,
      reference: item.referenceNumber ?? null,
    });
  }

  for (const r of REPAIRS) {
    rows.push({
      ref: r.ref,
      date: cal.date(-r.daysAgo),
      direction: 'expense',
      category: 'repair',
      ...gross(r.net, r.vat ? Math.round(r.net * VAT_RATE) : 0),
      payeeOrPayer: r.payee,
      reference: r.reference,
    });
  }

  rows.push(
    {
      ref: 'MAN-002',
      date: cal.date(-40),
      direction: 'expense',
      category: 'insurance',
      ...gross(51_240, 0),
      payeeOrPayer: 'LandlordCover Insurance',
      reference: 'LC-POL-88213',
    },
    {
      ref: 'MAN-007',
      date: cal.date(-20),
      direction: 'expense',
      category: 'utilities',
      ...gross(8_640, 432),
      payeeOrPayer: 'Octopus Energy',
      reference: 'Void period electricity',
    },
    {
      ref: 'MAN-007',
      date: cal.date(-18),
      direction: 'expense',
      category: 'council_tax',
      ...gross(15_630, 0),
      payeeOrPayer: 'Trafford Council',
      reference: 'Void council tax',
    },
  );

  return rows.sort((a, b) => (a.date as Date).getTime() - (b.date as Date).getTime());
}
