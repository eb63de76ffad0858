import { z } from 'zod';

// The one rule for text: every string of every schema is built with text(), so that what PostgreSQL's text and
// jsonb cannot hold is a 400 at the edge rather than a 500 when it is stored: a NUL (U+0000), and a lone UTF-16
// surrogate (JSON's "\ud800" without its pair, which is no character at all). Formats (uuid, dates) and regexes
// narrow it further. test/text.test.ts walks both route tables to keep it that way.

export const NUL_MESSAGE = 'must not contain NUL (U+0000) characters';
export const LONE_SURROGATE_MESSAGE =
  'must not contain a lone UTF-16 surrogate (\\ud800-\\udfff without its pair)';

// code units, not code points (no `u` flag): a high surrogate not followed by a low one, or a low one alone
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A string without U+0000 or a lone surrogate: the base of every text field. */
export function text() {
  return z
    .string()
    .refine((s) => !s.includes('\u0000'), NUL_MESSAGE)
    .refine((s) => !LONE_SURROGATE.test(s), LONE_SURROGATE_MESSAGE);
}
