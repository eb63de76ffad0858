import {
  KNOWLEDGE_BODY_MAX,
  KNOWLEDGE_KINDS,
  KNOWLEDGE_TITLE_MAX,
  KnowledgeBody,
  KnowledgeKind,
  KnowledgeTitle,
} from '@pa/contracts';

// One document as an operator gives it (the CLI's options or an imported file), and the checks that keep the
// corpus publishable: a row the changes read could not send under the contract is refused here, in words.

export interface KnowledgeInput {
  /** the operator's stable name: the imported file's name or its `key:` front matter */
  key: string;
  /** a property's ref (e.g. MAN-003); null for an agency-wide document */
  propertyRef: string | null;
  kind: string;
  title: string;
  body: string;
}

export const KNOWLEDGE_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,119}$/;

/** What is wrong with the document, one sentence each; empty when it can be stored. */
export function knowledgeProblems(d: KnowledgeInput): string[] {
  const problems: string[] = [];
  if (!KNOWLEDGE_KEY.test(d.key)) {
    problems.push(
      `key "${d.key}" must be 1–120 letters, digits, dots, dashes or underscores, starting with a letter or digit`,
    );
  }
  if (!KnowledgeKind.safeParse(d.kind).success) {
    problems.push(`kind "${d.kind}" is not one of ${KNOWLEDGE_KINDS.join(', ')}`);
  }
  const title = KnowledgeTitle.safeParse(d.title);
  if (!title.success) {
    problems.push(
      d.title.length > KNOWLEDGE_TITLE_MAX
        ? `title is ${d.title.length} characters long; at most ${KNOWLEDGE_TITLE_MAX} are allowed`
        : `title ${title.error.issues[0]?.message ?? 'is not valid'}`,
    );
  }
  const body = KnowledgeBody.safeParse(d.body);
  if (!body.success) {
    problems.push(
      d.body.length > KNOWLEDGE_BODY_MAX
        ? `body is ${d.body.length.toLocaleString('en-GB')} characters long; at most ${KNOWLEDGE_BODY_MAX.toLocaleString('en-GB')} are allowed`
        : `body ${body.error.issues[0]?.message ?? 'is not valid'}`,
    );
  }
  if (d.title.includes('\n')) problems.push('title must be one line');
  return problems;
}

/** Trims what an operator types around the text, so that a re-import of the same file changes nothing. */
export function normaliseInput(d: KnowledgeInput): KnowledgeInput {
  return {
    key: d.key.trim(),
    propertyRef: d.propertyRef?.trim() || null,
    kind: d.kind.trim(),
    title: d.title.trim(),
    body: d.body.replace(/\r\n/g, '\n').trim(),
  };
}
