import { describe, expect, it } from 'vitest';
import { asQuestion, INTENT_RULES, parseIntent } from '../src/features/providers/local/intent.ts';

// The order of the local provider's intent rules, one message per precedence that matters: a message both rules
// would take on their own, answered by the earlier. Each case first checks that both rules really match it, so
// that a case cannot pass only because one rule stopped matching.

const rule = (name: string) => {
  const found = INTENT_RULES.find((r) => r.name === name);
  if (!found) throw new Error(`no intent rule named ${name}`);
  return found;
};
const position = (name: string) => INTENT_RULES.indexOf(rule(name));

describe('intent rule precedence', () => {
  it.each([
    ['read-only', 'deals', 'Add a deal for MAN-004', 'read-only'],
    ['briefing', 'emails', 'Give me my morning briefing on emails', 'briefing'],
    ['emails', 'deals', 'Who has emailed us about the acquisition?', 'emails'],
    ['deals', 'property', 'What is the next action on the MAN-004 deal?', 'deals'],
    ['property', 'arrears', 'Is MAN-004 in arrears?', 'property'],
    ['epc-below-e', 'compliance', 'Which EPCs are below E?', 'epc-below-e'],
    ['arrears', 'rent-roll', 'How much rent is owed?', 'arrears'],
    ['tenancies', 'expiring', 'Which tenancies expire in the next 60 days?', 'tenancies'],
    ['voids', 'hmos', 'Which HMOs are vacant?', 'voids'],
    ['hmos', 'rent-ranking', 'Which HMOs have the highest rent?', 'hmos'],
    ['periodic', 'rent-roll', 'What is the total rent from rolling tenancies?', 'periodic'],
    ['rent-ranking', 'rent-roll', 'Which property has the highest monthly rent?', 'rent-ranking'],
    ['rent-roll', 'overview', "What is the portfolio's total rental income?", 'rent-roll'],
    ['compliance', 'overview', 'Portfolio compliance summary', 'compliance'],
    ['expiring', 'overview', 'How many things are due this month?', 'compliance'],
    ['overview', 'attention', 'How many issues are there?', 'overview'],
    ['attention', 'lookup', 'What needs attention?', 'attention'],
    ['briefing', 'attention', 'Give me a briefing of what needs attention', 'briefing'],
  ])('%s before %s: "%s"', (earlier, later, message, kind) => {
    expect(position(earlier)).toBeLessThan(position(later));
    const q = asQuestion(message);
    expect(rule(earlier).match(q)).not.toBeNull();
    expect(rule(later).match(q)).not.toBeNull();
    expect(parseIntent(message)).toEqual(rule(earlier).match(q));
    expect(parseIntent(message)?.kind).toBe(kind);
  });

  it('every rule says why it comes where it does', () => {
    expect(new Set(INTENT_RULES.map((r) => r.name)).size).toBe(INTENT_RULES.length);
    for (const r of INTENT_RULES) expect(r.before.length).toBeGreaterThan(20);
  });
});
