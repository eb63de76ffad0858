import type { PortfolioProperty } from '@pa/contracts';
import { type KnowledgeResult, KNOWLEDGE_TOOL_NAME } from '../../../tools/knowledge-tool.ts';
import type { Toolbox } from '../../../tools/toolbox.ts';
import { formatDate, londonDay } from '../format.ts';
import { explicitTarget } from '../intent.ts';
import { askNext, blocks } from '../markdown.ts';
import type { PlatformReader, PortfolioView } from '../platform-reader.ts';
import { mentionedProperties, normalise, resolveTarget } from '../property-match.ts';
import { notFoundReply } from './not-found.ts';

// A knowledge question ("where is the stopcock at MAN-003?") answered from the agency's documents through
// platform-search-knowledge: the property it names, the words worth searching for, and each passage quoted with
// its document's title and date, so that the property manager can see where a fact came from. The passages are
// quoted, never obeyed: nothing in them changes what this answer does.

/** Passages quoted at most. */
const QUOTED = 3;

const KIND_WORDS: Record<KnowledgeResult['passages'][number]['kind'], string> = {
  property_note: 'property note',
  landlord_instruction: 'landlord instruction',
  procedure: 'procedure',
  licence_condition: 'licence condition',
  contractor: 'contractor',
  local_rule: 'local rule',
};

// Words of the question that say how it is asked, not what it is about: searching for them would make the
// full-text search (which wants every word) miss the passage that answers it.
const FILLER = new Set(
  (
    'a an the at for of in on to by from with about is are was were be been do does did done we i you our my ' +
    'your their its it s there here this that these those what where which who whom whose how when why please ' +
    'tell me us know find show give can could would should will any anything some have has had got get ' +
    'property properties flat house home place address ref reference number id say says said documents document ' +
    'notes note kept keep located location'
  ).split(' '),
);

/** The words to search for: the question without its filler and without the property it names. */
export function searchTerms(text: string, property: PortfolioProperty | null): string[] {
  const own = new Set(
    property
      ? normalise(
          [
            property.ref,
            property.address.line1,
            property.address.line2 ?? '',
            property.address.town,
            property.address.postcode,
          ].join(' '),
        )
          .trim()
          .split(' ')
      : [],
  );
  const words = normalise(text.replace(/\b[A-Za-z]{3}-\d{3}\b/g, ' '))
    .trim()
    .split(' ')
    .filter((w) => w.length > 1 && !FILLER.has(w) && !own.has(w) && !/^\d+$/.test(w));
  return [...new Set(words)];
}

/** True when the worker can search the agency's documents. */
export function hasKnowledgeTool(tools: Toolbox): boolean {
  return tools.definitions.some((d) => d.name === KNOWLEDGE_TOOL_NAME);
}

export async function knowledgeReply(
  reader: PlatformReader,
  tools: Toolbox,
  view: PortfolioView,
  text: string,
): Promise<string> {
  const target = explicitTarget(text);
  let property: PortfolioProperty | null = null;
  if (target) {
    property = resolveTarget(target, view.properties);
    if (!property) return notFoundReply(target, view);
  } else {
    const mentioned = mentionedProperties(text, view.properties);
    if (mentioned.length === 1) property = mentioned[0]!;
  }
  const where = property ? ` about **${property.ref}** (${property.address.line1})` : '';
  if (!hasKnowledgeTool(tools))
    return blocks(
      `I cannot search the agency’s documents${where}: they are not synced to this assistant yet.`,
      'Once they are (Settings shows how many documents are synced), ask me again.',
    );

  const terms = searchTerms(text, property);
  if (terms.length === 0)
    return blocks(
      `What should I look for in the agency’s documents${where}? Name it, for example the stopcock, the boiler or the landlord’s repair limit.`,
    );
  // one search: it gives the documents holding every word first, then those holding some of them, best ranked first
  const result = await reader.call<KnowledgeResult>(KNOWLEDGE_TOOL_NAME, {
    query: terms.join(' '),
    ...(property ? { property: String(property.id) } : {}),
  });

  const asked = terms.join(' ');
  if (result.passages.length === 0)
    return blocks(
      `The agency’s documents hold nothing about that${property ? ` for **${property.ref}** (${property.address.line1})` : ''}: I searched them for “${asked}” and found no passage.`,
      'I will not guess. If it should be on record, add it to the property’s notes on the platform and it will be synced here.',
      askNext(
        property ? [`What needs attention at ${property.ref}?`] : ['What needs my attention this week?'],
      ),
    );

  const relevant = property ? aboutProperty(result.passages, property) : result.passages;
  const quoted = relevant.slice(0, QUOTED).map((p) => {
    const about = p.property_ref ? `, ${p.property_ref}` : ', agency-wide';
    const head = `**${p.title}** (${KIND_WORDS[p.kind]}${about}, updated ${formatDate(londonDay(p.updated_at))}, document ${p.document_id})`;
    return `${head}\n> ${quoteOf(p.snippet)}`;
  });
  const more = relevant.length > QUOTED ? ` (${relevant.length - QUOTED} more found)` : '';
  return blocks(
    `From the agency’s documents${where}${more}:`,
    ...quoted,
    'Quoted as written in the documents; the date is when each was last updated.',
  );
}

/**
 * The passages worth quoting about one property. Its own documents come first (the search puts them there); an
 * agency-wide one is quoted beside them only when it names the property (by ref or address), because a passage that
 * merely shares a word ("landlord", "service") reads as if it applied and does not. With none of its own, the
 * agency-wide passages are all there is, and are quoted as found.
 */
function aboutProperty(
  passages: KnowledgeResult['passages'],
  property: PortfolioProperty,
): KnowledgeResult['passages'] {
  const own = passages.filter((p) => p.property_ref === property.ref);
  if (own.length === 0) return passages;
  const names = [property.ref, property.address.line1]
    .map((n) => normalise(n).trim())
    .filter((n) => n.length > 0);
  const naming = passages.filter((p) => {
    if (p.property_ref !== null) return false;
    const said = ` ${normalise(`${p.title} ${p.snippet.replace(/[«»]/g, '')}`)} `;
    return names.some((n) => said.includes(` ${n} `));
  });
  return [...own, ...naming];
}

/** The headline as Markdown: matched words («…») in bold, on one line. */
function quoteOf(snippet: string): string {
  const line = snippet.replace(/\s+/g, ' ').trim();
  const marked = line.replace(/«([^»]*)»/g, (_m, word: string) => `**${word}**`).replace(/[«»]/g, '');
  if (!marked) return '…';
  // a fragment cut from mid-sentence ("internal stopcock is in the cellar") says so, as a quotation would
  return /^(\*\*)?[a-z]/.test(marked) ? `…${marked}` : marked;
}
