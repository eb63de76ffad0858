import type {
  ComplianceResponse,
  Deal,
  PortfolioComplianceResponse,
  PortfolioProperty,
  PortfolioResponse,
  PropertyComplianceAttention,
  TenantCopyOwed,
} from '@pa/contracts';
import { describe, expect, it } from 'vitest';
import {
  type BriefingPaging,
  type BriefingReads,
  BriefingTooLong,
  fetchBriefingData,
  type Page,
} from '../../src/features/briefing/briefing-data.ts';
import { deal, item, property } from './records.ts';

// The briefing's reads, the one place the daily summary and the chat's briefing get their data from, over
// hand-built pages: every page followed, what needs attention joined to its property, a list too long refused
// (the summary) or cut (the chat), and what a trimmed page left out read property by property.

const AS_OF = '2026-06-30T23:30:00Z'; // 1 July in London (BST)

function paging(limit: number, maxPages = 10): BriefingPaging {
  return {
    portfolio: { limit, maxPages },
    compliance: { limit, maxPages },
    deals: { limit, maxPages },
  };
}

/** A page of `list` at `cursor` (the index of its first record), `limit` records long. */
function pageOf<T>(list: T[], query: { limit: number; cursor?: string }) {
  const from = Number(query.cursor ?? 0);
  const to = from + query.limit;
  return { records: list.slice(from, to), next_cursor: to < list.length ? String(to) : null };
}

function attentionOf(p: PortfolioProperty): PropertyComplianceAttention {
  return {
    property_id: p.id,
    ref: p.ref,
    status: 'expired',
    items: [item('gas_safety', { property_id: p.id, status: 'expired' })],
    missing: [],
  };
}

/** Reads over fixed lists, recording every call; `trim` cuts the compliance page at that cursor to one record. */
function readsOver(
  properties: PortfolioProperty[],
  attention: PropertyComplianceAttention[],
  deals: Deal[],
  opts: { trim?: string; copies?: TenantCopyOwed[] } = {},
) {
  const calls: string[] = [];
  const reads: BriefingReads = {
    getPortfolio: async (query) => {
      calls.push(`portfolio ${query.cursor ?? ''}`);
      const page = pageOf(properties, query);
      return {
        tenant: { slug: 'demo', name: 'Demo Lettings Ltd' },
        as_of: AS_OF,
        summary: { properties: properties.length } as unknown as PortfolioResponse['summary'],
        properties: page.records,
        next_cursor: page.next_cursor,
      };
    },
    getPortfolioCompliance: async (query) => {
      calls.push(`compliance ${query.cursor ?? ''}`);
      const page = pageOf(attention, query);
      const answer: Page<PortfolioComplianceResponse> = {
        as_of: AS_OF,
        status: ['expired', 'expiring_soon', 'missing'],
        properties: page.records,
        next_cursor: page.next_cursor,
      };
      if ((query.cursor ?? '') !== opts.trim) return answer;
      return { ...answer, properties: page.records.slice(0, 1), truncated: { field: 'properties' } };
    },
    getCompliance: async (id): Promise<ComplianceResponse> => {
      calls.push(`property ${id}`);
      const found = attention.find((a) => a.property_id === id)!;
      return { property_id: id, as_of: AS_OF, status: found.status, items: found.items, missing: [] };
    },
    getTenantCopies: async (query) => {
      calls.push(`copies ${query.cursor ?? ''}`);
      const page = pageOf(opts.copies ?? [], query);
      return { as_of: AS_OF, status: query.status, items: page.records, next_cursor: page.next_cursor };
    },
    getDeals: async (query) => {
      calls.push(`deals ${query.cursor ?? ''}`);
      const page = pageOf(deals, query);
      return { deals: page.records, next_cursor: page.next_cursor };
    },
    getWorkerEmailActivity: async ({ hours }) => {
      calls.push(`emails ${hours}`);
      return { hours, since: AS_OF, items: [] };
    },
  };
  return { reads, calls };
}

describe('fetchBriefingData', () => {
  const properties = [
    property('LEE-001'),
    property('LEE-002', { compliance_status: 'expired' }),
    property('LEE-003'),
    property('LEE-004', { compliance_status: 'expired' }),
    property('LEE-005', { compliance_status: 'expired' }),
  ];
  const attention = properties.filter((p) => p.compliance_status !== 'valid').map(attentionOf);
  const deals = [deal('Sale of LEE-001'), deal('Let of LEE-003'), deal('Refinance')];

  it('follows every page, joins what needs attention to its property, and dates it in London', async () => {
    const { reads, calls } = readsOver(properties, attention, deals);
    const data = await fetchBriefingData(reads, { paging: paging(2), whole: true });
    expect(data.tenantName).toBe('Demo Lettings Ltd');
    expect(data.today).toBe('2026-07-01');
    expect(data.properties.map((p) => p.ref)).toEqual(properties.map((p) => p.ref));
    expect(data.compliance.map((c) => c.property.ref)).toEqual(['LEE-002', 'LEE-004', 'LEE-005']);
    expect(data.compliance[0]!.compliance.items[0]!.status).toBe('expired');
    expect(data.deals).toHaveLength(3);
    // the portfolio first, then the rest
    expect(calls.slice(0, 3)).toEqual(['portfolio ', 'portfolio 2', 'portfolio 4']);
    expect(calls.slice(3).sort()).toEqual(['compliance ', 'compliance 2', 'deals ', 'deals 2', 'emails 24']);
  });

  it('leaves out a property the portfolio did not list (added between the two reads)', async () => {
    const stranger = attentionOf(property('LEE-999'));
    const { reads } = readsOver(properties, [...attention, stranger], deals);
    const data = await fetchBriefingData(reads, { paging: paging(10), whole: true });
    expect(data.compliance.map((c) => c.property.ref)).toEqual(['LEE-002', 'LEE-004', 'LEE-005']);
  });

  it('whole: a list longer than its pages refuses to be cut; otherwise what was read is kept', async () => {
    const { reads } = readsOver(properties, attention, deals);
    const refused = fetchBriefingData(reads, { paging: paging(2, 2), whole: true });
    await expect(refused).rejects.toBeInstanceOf(BriefingTooLong);
    await expect(refused).rejects.toMatchObject({
      list: 'portfolio',
      message: 'more than 4 records, too many for one briefing.',
    });
    const cut = await fetchBriefingData(reads, { paging: paging(2, 2), whole: false });
    expect(cut.properties.map((p) => p.ref)).toEqual(['LEE-001', 'LEE-002', 'LEE-003', 'LEE-004']);
  });

  it('a trimmed compliance page: what it left out is read property by property', async () => {
    const { reads, calls } = readsOver(properties, attention, deals, { trim: '' });
    const data = await fetchBriefingData(reads, { paging: paging(2), whole: false });
    expect(data.compliance.map((c) => c.property.ref).sort()).toEqual(['LEE-002', 'LEE-004', 'LEE-005']);
    expect(calls.filter((c) => c.startsWith('property '))).toEqual([`property ${properties[3]!.id}`]);
    await expect(
      fetchBriefingData(readsOver(properties, attention, deals, { trim: '' }).reads, {
        paging: paging(2),
        whole: true,
      }),
    ).rejects.toMatchObject({ list: 'compliance' });
  });

  describe('tenant copies', () => {
    // copies owed on valid certificates, which the compliance read (items not valid) does not list
    const owed = (p: PortfolioProperty, type: 'gas_safety' | 'eicr'): TenantCopyOwed => ({
      property_id: p.id,
      ref: p.ref,
      item: item(type, {
        property_id: p.id,
        status: 'valid',
        tenant_copy_due_date: '2026-06-20',
        tenant_copy_status: 'overdue',
      }),
    });
    const copies = [
      owed(properties[0]!, 'gas_safety'),
      owed(properties[2]!, 'eicr'),
      owed(properties[2]!, 'gas_safety'),
    ];

    it('are one paged read for the whole portfolio, never a read per property', async () => {
      const { reads, calls } = readsOver(properties, attention, deals, { copies });
      const data = await fetchBriefingData(reads, { paging: paging(2), whole: true, tenantCopies: true });
      expect(data.copies).toEqual(copies);
      expect(data.copiesUnchecked).toBe(0);
      expect(calls.filter((c) => c.startsWith('copies'))).toEqual(['copies ', 'copies 2']);
      expect(calls.filter((c) => c.startsWith('property'))).toEqual([]);
      // not asked for: not read
      const without = readsOver(properties, attention, deals, { copies });
      const plain = await fetchBriefingData(without.reads, { paging: paging(2), whole: true });
      expect(plain.copies).toBeUndefined();
      expect(without.calls.filter((c) => c.startsWith('copies'))).toEqual([]);
    });

    it('have paging of their own: the summary refuses to cut them, the chat says how many properties it did not check', async () => {
      const bounded = { ...paging(10), copies: { limit: 1, maxPages: 2 } };
      const { reads, calls } = readsOver(properties, attention, deals, { copies });
      await expect(
        fetchBriefingData(reads, { paging: bounded, whole: true, tenantCopies: true }),
      ).rejects.toMatchObject({ list: 'copies', message: 'more than 2 records, too many for one briefing.' });
      calls.length = 0;
      const cut = await fetchBriefingData(reads, { paging: bounded, whole: false, tenantCopies: true });
      expect(calls.filter((c) => c.startsWith('copies'))).toEqual(['copies ', 'copies 1']);
      expect(cut.copies).toEqual(copies.slice(0, 2));
      // LEE-003 (its second record not read), LEE-004 and LEE-005: every let property from the last one listed
      expect(cut.copiesUnchecked).toBe(3);
    });
  });
});
