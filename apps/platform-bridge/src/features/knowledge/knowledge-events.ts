import { KNOWLEDGE_EVENT_PROPERTY_IDS_MAX, type PlatformEvent } from '@pa/contracts';

/**
 * The `knowledge.changed` event of one write: how many documents changed and which properties they are about
 * (the first 100; agency-wide documents name none). A nudge to sync now: the documents are read through the
 * changes endpoint, so the event carries no text of them.
 */
export function knowledgeChangedEvent(
  tenantSlug: string,
  changed: ReadonlyArray<{ propertyId: number | null }>,
  at: Date,
): PlatformEvent {
  const propertyIds = [
    ...new Set(changed.flatMap((d) => (d.propertyId === null ? [] : [d.propertyId]))),
  ].sort((a, b) => a - b);
  return {
    type: 'knowledge.changed',
    timestamp: at.toISOString(),
    data: {
      tenant_slug: tenantSlug,
      changed: changed.length,
      property_ids: propertyIds.slice(0, KNOWLEDGE_EVENT_PROPERTY_IDS_MAX),
      at: at.toISOString(),
    },
  };
}
