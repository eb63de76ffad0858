import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The README and docs/ stay true to the repository: the README starts with the two commands, every relative
// link lands on a file (and heading) that exists, and nothing cites a document that is not in the repository.
const root = path.resolve(import.meta.dirname, '..');
const read = (f: string) => readFileSync(path.join(root, f), 'utf8');
const docs = readdirSync(path.join(root, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`);
const pages = ['README.md', ...docs];

/** Tracked files and new ones not ignored, as git lists them: what a clone would hold. */
function repositoryFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  });
  return out
    .split('\0')
    .filter((f) => f && !/(^|\/)(node_modules|generated)\//.test(f))
    .filter((f) => existsSync(path.join(root, f)) && statSync(path.join(root, f)).isFile());
}

/** Text files only: a NUL in the first bytes marks a binary (the screenshots). */
function textOf(file: string): string | null {
  const buf = readFileSync(path.join(root, file));
  return buf.subarray(0, 8000).includes(0) ? null : buf.toString('utf8');
}

/** Markdown without its fenced blocks and code spans, where a `[x](y)` is code, not a link. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

function links(markdown: string): string[] {
  return [...prose(markdown).matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
}

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const stripped = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const [, heading] of stripped.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = heading!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n ? `${slug}-${n}` : slug);
  }
  return out;
}

describe('README and docs/', () => {
  it('starts the README with the two commands, and keeps it short', () => {
    const lines = read('README.md').split('\n');
    const top = lines.slice(0, 40).join('\n');
    expect(top).toContain('npm ci && npm start');
    expect(top).toMatch(/^npm test\b/m);
    expect(lines.length).toBeLessThanOrEqual(120);
  });

  it('shows the two screenshots, each small enough to commit', () => {
    const readme = links(read('README.md'));
    for (const png of ['docs/chat.png', 'docs/review-queue.png']) {
      expect(readme).toContain(png);
      expect(statSync(path.join(root, png)).size).toBeLessThan(300 * 1024);
    }
  });

  it('has every relative link land on a file, and every #anchor on a heading of it', () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const href of links(read(page))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // http:, https:, mailto:
        const [file, anchor] = href.split('#') as [string, string | undefined];
        const target = file ? path.posix.normalize(path.posix.join(path.posix.dirname(page), file)) : page;
        if (target.startsWith('..') || !existsSync(path.join(root, target))) {
          broken.push(`${page}: ${href} (no such file)`);
        } else if (anchor && target.endsWith('.md') && !anchors(read(target)).has(anchor)) {
          broken.push(`${page}: ${href} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('lists every variable of .env.example in docs/configuration.md', () => {
    const configuration = read('docs/configuration.md');
    const names = [...read('.env.example').matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!);
    expect(names.length).toBeGreaterThan(40);
    expect(names.filter((name) => !configuration.includes(`\`${name}\``))).toEqual([]);
  });
});

describe('references', () => {
  // Spelled in pieces so that this file does not match itself.
  const specCitation = new RegExp(`\\b${'SP'}${'EC'}\\b`);
  const sectionSign = new RegExp(`(?<!RFC \\d+ )${'\u00a7'} ?\\d`);
  const sharedDir = 'shared' + '/';

  it('cites no document outside the repository', () => {
    const offending: string[] = [];
    for (const file of repositoryFiles()) {
      const text = textOf(file);
      if (text === null) continue;
      text.split('\n').forEach((line, i) => {
        if (specCitation.test(line) || sectionSign.test(line) || line.includes(sharedDir)) {
          offending.push(`${file}:${i + 1}: ${line.trim()}`);
        }
      });
    }
    expect(offending).toEqual([]);
  });

  it('names only docs pages that exist', () => {
    const missing: string[] = [];
    for (const file of repositoryFiles()) {
      const text = textOf(file);
      if (text === null) continue;
      for (const [page] of text.matchAll(/\bdocs\/[a-z0-9-]+\.(?:md|png)\b/g)) {
        if (!existsSync(path.join(root, page))) missing.push(`${file}: ${page}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
