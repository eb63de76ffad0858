import type { PlatformEvent } from '@pa/contracts';
import { TYPE_LABELS } from '../briefing/compliance-words.ts';
import { formatDate } from '../briefing/uk-format.ts';

// A platform event in the words a property manager reads in the feed and on Telegram or WhatsApp: what happened,
// to what, with the property reference and UK dates. No emoji; Markdown bold only, which every channel renders.

const KIND_WORDS = {
  deal: 'Deal proposal',
  compliance_update: 'Compliance update proposal',
  financial_log: 'Financial log proposal',
} as const;

export function eventMessage(event: PlatformEvent): string {
  switch (event.type) {
    case 'proposal.approved':
    case 'proposal.rejected':
    case 'proposal.expired': {
      const d = event.data;
      const what = `${KIND_WORDS[d.kind]} #${d.proposal_id} “${d.label}”`;
      if (d.status === 'expired') return `${what} expired without a decision.`;
      const note = d.decision_note ? ` Note: “${d.decision_note}”` : '';
      return d.status === 'approved'
        ? `${what} was **approved**.${note}`
        : `${what} was **rejected**.${note}`;
    }
    case 'compliance.status_changed': {
      const d = event.data;
      const item = `${TYPE_LABELS[d.compliance_type]} at **${d.property_ref}**, ${d.address}`;
      const date = d.expiry_date ? formatDate(d.expiry_date) : null;
      return d.status === 'expired'
        ? `${item} has **expired**${date ? ` (expiry ${date})` : ''}.`
        : `${item} expires soon${date ? ` (on ${date})` : ''}.`;
    }
    case 'knowledge.changed': {
      const n = event.data.changed;
      return `${n} knowledge ${n === 1 ? 'document' : 'documents'} changed on the platform.`;
    }
  }
}
