import { z } from 'zod';

// The one rule for text: every string of every schema is built with text(), so that a NUL (U+0000), which
// PostgreSQL's text cannot hold, is a 400 at the edge rather than a 500 when it is stored. Formats (uuid, dates)
// and regexes narrow it further. test/text.test.ts walks both route tables to keep it that way.

export const NUL_MESSAGE = 'must not contain NUL (U+0000) characters';

/** A string without U+0000: the base of every text field. */
export function text() {
  return z.string().refine((s) => !s.includes('\u0000'), NUL_MESSAGE);
}
