import type { PortfolioProperty } from '@pa/contracts';
import type { Target } from './intent.ts';

// Finding the properties a question names: by reference, postcode, id, street, area, town or outward code.

function compactPostcode(p: string): string {
  return p.replace(/\s+/g, '').toUpperCase();
}

export function resolveTarget(target: Target, properties: PortfolioProperty[]): PortfolioProperty | null {
  switch (target.by) {
    case 'id':
      return properties.find((p) => p.id === target.id) ?? null;
    case 'ref':
      return properties.find((p) => p.ref.toUpperCase() === target.ref) ?? null;
    case 'postcode':
      return (
        properties.find((p) => compactPostcode(p.address.postcode) === compactPostcode(target.postcode)) ??
        null
      );
  }
}

const ABBREVIATIONS: Record<string, string> = {
  rd: 'road',
  ln: 'lane',
  ave: 'avenue',
  sq: 'square',
  gdns: 'gardens',
};
const GENERIC = new Set(
  (
    'the a an my our this that it them all each every any property properties portfolio house houses flat flats ' +
    'apartment apartments home homes road street lane place here there today now moment please compliance ' +
    'gas eicr epc safety certificate certificates status attention hmo licence license deals deal emails email ' +
    'tenant tenants tenancy rent arrears week weeks day days month months year next last soon overview summary'
  ).split(' '),
);

export function normalise(text: string): string {
  return ` ${text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .map((w) => ABBREVIATIONS[w] ?? w)
    .join(' ')} `;
}

function haystack(p: PortfolioProperty): string {
  const a = p.address;
  return normalise([p.ref, a.line1, a.line2 ?? '', a.town, a.postcode, a.postcode.split(' ')[0]].join(' '));
}

/** Street names of a property's address lines: "16 Clarendon Road" → "clarendon road". */
function streetNames(p: PortfolioProperty): string[] {
  const names: string[] = [];
  for (const line of [p.address.line1, p.address.line2]) {
    if (!line) continue;
    for (const part of line.split(',')) {
      const name = normalise(part.replace(/^\s*(flat|apartment|studio|unit)\s+\w+\s*/i, ''))
        .replace(/^ \d+[a-z]? /, ' ')
        .trim();
      if (name.length >= 6 && name.includes(' ') && !/^(upper|lower) maisonette$/.test(name))
        names.push(name);
    }
  }
  return names;
}

/**
 * The properties a question names by a street, area, town or postcode fragment ("at 16 Clarendon Road",
 * "in BS6", "Beech Road"). Phrases after at/for/on/of/about/in are tried first, the most specific winning;
 * then any street name of the portfolio that appears in the question.
 */
export function mentionedProperties(text: string, properties: PortfolioProperty[]): PortfolioProperty[] {
  const hay = properties.map((p) => ({ p, h: haystack(p) }));
  const candidates: PortfolioProperty[][] = [];
  const segments = text.split(/\b(?:at|for|on|of|about|in|near|with)\b|[?!.;:]/i);
  for (const segment of segments.slice(1)) {
    const phrase = normalise(segment.replace(/^\s*(the|my|our|property|properties)\s+/i, ''));
    const meaningful = phrase
      .trim()
      .split(' ')
      .filter((w) => w && !GENERIC.has(w));
    if (meaningful.length === 0 || phrase.trim().length < 3) continue;
    const matches = hay.filter((x) => x.h.includes(phrase)).map((x) => x.p);
    if (matches.length > 0) candidates.push(matches);
  }
  if (candidates.length > 0) return candidates.sort((a, b) => a.length - b.length)[0]!;
  const whole = normalise(text);
  const byStreet = properties.filter((p) => streetNames(p).some((name) => whole.includes(` ${name} `)));
  if (byStreet.length > 0) return byStreet;
  // a town or an outward code said anywhere: "summarise Leeds", "anything in BS6?"
  return properties.filter(
    (p) =>
      whole.includes(` ${normalise(p.address.town).trim()} `) ||
      whole.includes(` ${p.address.postcode.split(' ')[0]!.toLowerCase()} `),
  );
}

/** The properties a named place means ("14 Oak Street", "Leeds", "BS6"); empty when none. */
export function placeMatches(place: string, properties: PortfolioProperty[]): PortfolioProperty[] {
  const phrase = normalise(place);
  if (phrase.trim().length < 2) return [];
  const direct = properties.filter((p) => haystack(p).includes(phrase));
  if (direct.length > 0) return direct;
  return mentionedProperties(place, properties);
}
