import { askNext, blocks } from '../markdown.ts';
import type { Target } from '../intent.ts';
import type { PortfolioView } from '../platform-reader.ts';
import { plural } from '../format.ts';

function targetWords(target: Target): string {
  switch (target.by) {
    case 'id':
      return `property id ${target.id}`;
    case 'ref':
      return `a property with the reference **${target.ref}**`;
    case 'postcode':
      return `a property at the postcode **${target.postcode}**`;
  }
}

/** Said plainly, never the overview instead: the place is not in the portfolio. */
export function notFoundReply(what: Target | string, view: PortfolioView): string {
  const words = typeof what === 'string' ? `**${what}**` : targetWords(what);
  const count = plural(view.properties.length, 'property', 'properties');
  return blocks(
    `I could not find ${words} in ${view.tenant.name}’s portfolio (${count}).`,
    'Check the reference, street or postcode; I can look a property up by any of them.',
    askNext(['Give me a portfolio overview', 'Which properties have arrears?']),
  );
}
