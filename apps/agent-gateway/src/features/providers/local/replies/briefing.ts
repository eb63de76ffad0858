import { briefingFacts } from '../../../briefing/briefing-facts.ts';
import { writeBriefing } from '../../../briefing/briefing-writer.ts';
import type { PlatformReader } from '../platform-reader.ts';
import { readCompliance } from '../platform-reader.ts';

/** The daily briefing: the shared facts, read through the toolbox, written by the shared writer. */
export async function briefingReply(reader: PlatformReader): Promise<string> {
  const view = await reader.portfolio();
  const [compliance, { deals }, mail] = await Promise.all([
    readCompliance(reader, view.properties, 'not-valid'),
    reader.deals('open'),
    reader.emails(24),
  ]);
  return writeBriefing(
    briefingFacts({
      tenantName: view.tenant.name,
      today: view.today,
      summary: view.summary,
      properties: view.properties,
      compliance: compliance.records,
      deals,
      emails: mail.items,
    }),
  );
}
