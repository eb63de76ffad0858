import type { Property as ApiProperty, ComplianceResponse } from '@pa/contracts';
import type { Clock } from '../../lib/clock.ts';
import { londonDate } from '../../lib/clock.ts';
import { NotFound } from '@pa/http-kit';
import { toApiComplianceItem, toRulesItem, toRulesProperty } from '../compliance/compliance-mapper.ts';
import { evaluateProperty } from '../compliance/compliance-rules.ts';
import { toApiProperty } from './property-mapper.ts';
import type { PropertyRepository } from './property-repository.ts';

// Both reads evaluate the rules live (the rollup table only serves the portfolio aggregate), so a single
// property is always judged on today's date.
export function createPropertiesService(deps: { properties: PropertyRepository; clock: Clock }) {
  const { properties, clock } = deps;

  async function load(tenantId: number, id: number) {
    const p = await properties.findWithCompliance(tenantId, id);
    // Another tenant's property and a missing one look the same: existence is not disclosed.
    if (!p) throw new NotFound('property-not-found', `No property with id ${id}.`);
    const now = clock.now();
    const today = londonDate(now);
    const rules = toRulesProperty(p);
    return {
      p,
      now,
      today,
      rules,
      evaluation: evaluateProperty(rules, p.complianceItems.map(toRulesItem), today),
    };
  }

  return {
    async getProperty(tenantId: number, id: number): Promise<ApiProperty> {
      const { p, evaluation, today } = await load(tenantId, id);
      const arrearsBefore = await properties.arrearsBefore(tenantId, id, today);
      return toApiProperty(p, evaluation, today, arrearsBefore);
    },
    async getCompliance(tenantId: number, id: number): Promise<ComplianceResponse> {
      const { p, now, today, rules, evaluation } = await load(tenantId, id);
      return {
        property_id: p.id,
        as_of: now.toISOString(),
        status: evaluation.status,
        items: evaluation.items.map((e) =>
          toApiComplianceItem(e.item.row, e.status, e.daysUntilDue, rules, today),
        ),
        missing: evaluation.missing,
      };
    },
  };
}
export type PropertiesService = ReturnType<typeof createPropertiesService>;
