import type { Deal as ApiDeal } from '@pa/contracts';
import type { Deal } from '../../generated/prisma/client.ts';
import { toDateString } from '../../lib/clock.ts';

/** A stored deal as the bridge answers it (GET /deals). */
export function toApiDeal(d: Deal): ApiDeal {
  return {
    id: d.id,
    title: d.title,
    deal_type: d.dealType as ApiDeal['deal_type'],
    stage: d.stage,
    status: d.status as ApiDeal['status'],
    value_pence: d.valuePence,
    property_id: d.propertyId,
    counterparty: d.counterparty,
    expected_close_date: toDateString(d.expectedCloseDate),
    next_action: d.nextAction,
    next_action_due: toDateString(d.nextActionDue),
    source: d.source as ApiDeal['source'],
    created_at: d.createdAt.toISOString(),
    updated_at: d.updatedAt.toISOString(),
  };
}
