import { briefingFacts, writeBriefing } from '../briefing/index.ts';
import type { BriefingData } from './briefing-source.ts';

// The daily summary's briefing is the chat's (features/briefing): the same facts from the same reads, written
// the same way, so the morning message and an answer in the chat never disagree. The summary names the property
// of every line: the writer lists deals by title and email by subject, so those linked to a property are handed
// to it with the property's ref in front.
export function writeSummaryBriefing(data: BriefingData): string {
  const refOf = new Map(data.properties.map((p) => [p.id, p.ref]));
  const withRef = (id: number | null, text: string) => {
    const ref = id === null ? undefined : refOf.get(id);
    return ref ? `${ref} – ${text}` : text;
  };
  return writeBriefing(
    briefingFacts({
      ...data,
      deals: data.deals.map((d) => ({ ...d, title: withRef(d.property_id, d.title) })),
      emails: data.emails.map((e) => ({ ...e, subject: withRef(e.linked.property_id, e.subject) })),
    }),
  );
}
