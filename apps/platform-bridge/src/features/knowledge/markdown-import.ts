import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { KNOWLEDGE_BODY_MAX } from '@pa/contracts';
import { Unprocessable } from '@pa/http-kit';
import type { KnowledgeInput } from './knowledge-input.ts';

// A folder of Markdown files, one document each, as an operator keeps them:
//
//   ---
//   title: Stopcock location
//   kind: property_note
//   property: MAN-003        (optional; omit for an agency-wide document)
//   key: man-003-stopcock    (optional; default the file name without .md)
//   ---
//   The stopcock is under the kitchen sink, behind the bin.
//
// Front matter is `name: value` lines (a value may be quoted); anything else there is an error, so that a typo in
// a field name is not silently taken for body text. Every file's problems are collected and reported together.

const FIELDS = ['title', 'kind', 'property', 'key'] as const;
type Field = (typeof FIELDS)[number];
// generous for front matter and Markdown around a body of the largest size (characters may take 4 bytes)
const FILE_BYTES_MAX = KNOWLEDGE_BODY_MAX * 4 + 4096;

export class KnowledgeImportError extends Unprocessable {
  constructor(readonly problems: string[]) {
    super('invalid-knowledge-files', problems.join('\n'));
  }
}

function unquote(v: string): string {
  const m = /^(["'])(.*)\1$/.exec(v);
  return m ? m[2]! : v;
}

/** One file's document, or what is wrong with it. */
export function parseKnowledgeMarkdown(
  fileName: string,
  source: string,
): { document: KnowledgeInput } | { problems: string[] } {
  const text = source.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
  const m = /^---\n([\s\S]*?)\n---(?:\n|$)([\s\S]*)$/.exec(text);
  if (!m) {
    return {
      problems: [`${fileName}: does not start with front matter (a line "---", name: value lines, "---")`],
    };
  }
  const fields: Partial<Record<Field, string>> = {};
  const problems: string[] = [];
  m[1]!.split('\n').forEach((line, i) => {
    if (!line.trim() || line.trimStart().startsWith('#')) return;
    const f = /^([A-Za-z_]+)\s*:\s*(.*)$/.exec(line);
    if (!f) {
      problems.push(`${fileName}: front matter line ${i + 2} is not "name: value"`);
      return;
    }
    const name = f[1]!.toLowerCase() === 'property_ref' ? 'property' : f[1]!.toLowerCase();
    if (!(FIELDS as readonly string[]).includes(name)) {
      problems.push(`${fileName}: unknown front matter field "${f[1]}" (use ${FIELDS.join(', ')})`);
      return;
    }
    if (fields[name as Field] !== undefined) problems.push(`${fileName}: front matter names ${name} twice`);
    fields[name as Field] = unquote(f[2]!.trim());
  });
  if (!fields.title) problems.push(`${fileName}: front matter has no title`);
  if (!fields.kind) problems.push(`${fileName}: front matter has no kind`);
  if (problems.length) return { problems };
  return {
    document: {
      key: fields.key || path.basename(fileName, path.extname(fileName)),
      propertyRef: fields.property || null,
      kind: fields.kind!,
      title: fields.title!,
      body: m[2]!,
    },
  };
}

/** Every `.md` file directly in `dir`, in name order; throws KnowledgeImportError listing every problem. */
export async function readKnowledgeFolder(dir: string): Promise<KnowledgeInput[]> {
  let names: string[];
  try {
    if (!(await stat(dir)).isDirectory()) throw new KnowledgeImportError([`${dir} is not a folder`]);
    names = (await readdir(dir)).filter((n) => n.toLowerCase().endsWith('.md')).sort();
  } catch (err) {
    if (err instanceof KnowledgeImportError) throw err;
    throw new KnowledgeImportError([
      `cannot read the folder ${dir}: ${(err as NodeJS.ErrnoException).code ?? err}`,
    ]);
  }
  if (names.length === 0) throw new KnowledgeImportError([`${dir} holds no .md files`]);
  const documents: KnowledgeInput[] = [];
  const problems: string[] = [];
  for (const name of names) {
    const file = path.join(dir, name);
    const size = (await stat(file)).size;
    if (size > FILE_BYTES_MAX) {
      problems.push(
        `${name}: is ${size.toLocaleString('en-GB')} bytes; a document's file may be at most ${FILE_BYTES_MAX.toLocaleString('en-GB')}`,
      );
      continue;
    }
    const parsed = parseKnowledgeMarkdown(name, await readFile(file, 'utf8'));
    if ('problems' in parsed) problems.push(...parsed.problems);
    else documents.push(parsed.document);
  }
  if (problems.length) throw new KnowledgeImportError(problems);
  return documents;
}
