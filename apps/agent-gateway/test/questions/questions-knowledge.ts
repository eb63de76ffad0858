import type { KnowledgeDocument } from '@pa/contracts';
import { type Check, matches, matchesNot, mentions, says, saysNot, ukDate } from './checks.ts';
import type { DemoFacts } from './demo-facts.ts';
import type { Question } from './expectations.ts';

// What only the agency's documents know (issue 35): each answer must quote the document the bridge itself
// publishes for that property and subject, by its title and the date it was last updated; a subject the corpus
// does not hold must be said plainly, never guessed.

/** The London day (YYYY-MM-DD) a document was last updated, as the answer dates it. */
function updatedDay(doc: KnowledgeDocument): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/London' }).format(new Date(doc.updated_at));
}

/** The corpus's document of `ref` about `subject`; a corpus without one fails the question in words. */
function documentOn(f: DemoFacts, ref: string | null, subject: RegExp): KnowledgeDocument {
  const doc = f.knowledge.find(
    (d) => (ref === null || d.property_ref === ref) && (subject.test(d.title) || subject.test(d.body)),
  );
  if (!doc) throw new Error(`the demo corpus has no document${ref ? ` of ${ref}` : ''} matching ${subject}`);
  return doc;
}

function cites(doc: KnowledgeDocument): Check[] {
  return [says(doc.title, `the document's title “${doc.title}”`), says(ukDate(updatedDay(doc)), 'its date')];
}

export const KNOWLEDGE_QUESTIONS: Question[] = [
  {
    id: 'knowledge-stopcock',
    group: 'knowledge',
    say: 'Where is the stopcock at MAN-003?',
    expect: (f) => [mentions(['MAN-003']), ...cites(documentOn(f, 'MAN-003', /stop ?cock/i))],
  },
  {
    id: 'knowledge-repair-limit',
    group: 'knowledge',
    say: "What is the landlord's repair limit for LDS-002?",
    expect: (f) => {
      const doc = documentOn(f, 'LDS-002', /repair limit/i);
      const limit = /£[\d,]+/.exec(doc.body)?.[0];
      if (!limit) throw new Error(`“${doc.title}” names no amount`);
      return [
        mentions(['LDS-002']),
        ...cites(doc),
        says(limit, `the limit the document gives (${limit})`),
        // an agency-wide rule that shares only the word "landlord" is not about LDS-002
        saysNot('Waltham Forest', 'it quotes another borough’s licensing rule as if it applied'),
      ];
    },
  },
  {
    id: 'knowledge-boiler-by-address',
    group: 'knowledge',
    // MAN-002's address, as a property manager says it
    say: 'Who services the boiler at 34 Beech Road?',
    expect: (f) => [mentions(['MAN-002']), ...cites(documentOn(f, 'MAN-002', /boiler/i))],
  },
  {
    id: 'knowledge-hmo-conditions',
    group: 'knowledge',
    say: 'What are the HMO licence conditions at LON-006?',
    expect: (f) => [mentions(['LON-006']), ...cites(documentOn(f, 'LON-006', /licen[cs]e/i))],
  },
  {
    id: 'knowledge-not-in-corpus',
    group: 'knowledge',
    say: 'Who is our locksmith for MAN-003?',
    expect: (f) => {
      // the referee first: the corpus really holds nothing about a locksmith
      if (f.knowledge.some((d) => /locksmith/i.test(`${d.title} ${d.body}`)))
        throw new Error('the demo corpus now mentions a locksmith: pick a subject it does not hold');
      return [
        mentions(['MAN-003']),
        matches(/hold nothing about that/i, 'says the documents hold nothing about it'),
        matchesNot(/updated \d/, 'it quotes a document although none is about a locksmith'),
      ];
    },
  },
];
