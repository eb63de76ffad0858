import { explicitTarget, type Intent, parseIntent, placeIn } from './intent.ts';

// Short follow-ups read with the conversation: "What's the rent there?" after a question about MAN-004,
// "And EICRs?" after "Which gas safety certificates have expired?". Pure: the earlier user messages are given.

const POINTS_BACK =
  /\b(there|that property|this property|that one|this one|the property|it|its|that place)\b/i;
const CONTINUES = /^\s*(and|what about|how about|same for|now)\b/i;

/** The earlier question's property (a ref, postcode or place), newest first; null when none. */
function earlierPlace(earlier: string[]): string | null {
  for (const text of [...earlier].reverse()) {
    const target = explicitTarget(text);
    if (target)
      return target.by === 'ref'
        ? target.ref
        : target.by === 'postcode'
          ? target.postcode
          : `property ${target.id}`;
    const place = placeIn(text);
    if (place) return place;
  }
  return null;
}

/** The question to answer: `text` itself, or `text` completed with the property the conversation is about. */
export function withContext(text: string, earlier: string[]): string {
  if (explicitTarget(text) || placeIn(text) || !POINTS_BACK.test(text) || earlier.length === 0) return text;
  const place = earlierPlace(earlier.slice(-3));
  return place ? `${text.replace(/[?.!\s]+$/, '')} at ${place}?` : text;
}

/** The intent of a follow-up like "And EICRs?": the previous compliance question with the new type. */
export function followUpIntent(text: string, intent: Intent | null, earlier: string[]): Intent | null {
  if (!CONTINUES.test(text) || earlier.length === 0) return intent;
  if (intent && intent.kind !== 'compliance' && intent.kind !== 'lookup') return intent;
  if (intent?.kind === 'compliance' && (intent.status || intent.window)) return intent;
  if (intent?.kind === 'lookup' && intent.place) return intent;
  const previous = parseIntent(earlier[earlier.length - 1]!);
  if (previous?.kind !== 'compliance') return intent;
  const type = intent?.kind === 'compliance' ? intent.type : intent?.kind === 'lookup' ? intent.focus : null;
  return type ? { ...previous, type } : intent;
}
