import { briefingFacts, writeBriefing } from '../briefing/index.ts';
import type { BriefingData } from './briefing-source.ts';

// The daily summary's briefing is the chat's (features/briefing): the same facts from the same reads, written
// the same way, so the morning message and an answer in the chat never disagree. Every line of the attention
// list already names its property, deals and email included.
export function writeSummaryBriefing(data: BriefingData): string {
  return writeBriefing(briefingFacts(data));
}
