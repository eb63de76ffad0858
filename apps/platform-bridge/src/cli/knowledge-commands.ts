import { readFile } from 'node:fs/promises';
import { KNOWLEDGE_KINDS } from '@pa/contracts';
import {
  createKnowledgeAdminService,
  type DocumentRef,
  type KnowledgeWriteResult,
} from '../features/knowledge/knowledge-admin-service.ts';
import { readKnowledgeFolder } from '../features/knowledge/markdown-import.ts';
import type { Command, CommandContext, OptionName, OptionValues } from './command.ts';
import { textTable as table } from '@pa/http-kit';
import { UsageError } from './usage-error.ts';

// The `knowledge` commands (docs/operations.md): a tenant's knowledge corpus, which the agent gateway copies
// through GET /knowledge/changes. Documents are named by --id or by --key (the imported file's name).

const str = (opts: OptionValues, name: OptionName): string => {
  const v = opts[name];
  if (typeof v !== 'string') throw new UsageError(`--${name} needs a value.`);
  return v;
};
const optStr = (opts: OptionValues, name: OptionName): string | undefined =>
  opts[name] === undefined ? undefined : str(opts, name);

const service = (ctx: CommandContext) => createKnowledgeAdminService({ db: ctx.db, clock: ctx.clock });

// Dates as a letting agent reads them: 19 Oct 2026, 14:05 (London time)
const when = (iso: string) =>
  new Intl.DateTimeFormat('en-GB', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZone: 'Europe/London',
  }).format(new Date(iso));

function documentRef(opts: OptionValues): DocumentRef {
  if ((opts.id === undefined) === (opts.key === undefined))
    throw new UsageError('Give exactly one of --id or --key.');
  if (opts.key !== undefined) return { key: str(opts, 'key') };
  const raw = str(opts, 'id');
  if (!/^[1-9]\d{0,9}$/.test(raw) || Number(raw) > 2_147_483_647) {
    throw new UsageError(`--id must be a document id (a positive integer), not "${raw}".`);
  }
  return { id: Number(raw) };
}

function checkKind(opts: OptionValues): void {
  const kind = opts.kind;
  if (kind !== undefined && !(KNOWLEDGE_KINDS as readonly unknown[]).includes(kind)) {
    throw new UsageError(`--kind must be one of ${KNOWLEDGE_KINDS.join(', ')}, not "${String(kind)}".`);
  }
}

/** --body, or --file for a body kept in a file; at most one. */
async function bodyOf(opts: OptionValues): Promise<string | undefined> {
  if (opts.body !== undefined && opts.file !== undefined)
    throw new UsageError('Give --body or --file, not both.');
  if (opts.file === undefined) return optStr(opts, 'body');
  const file = str(opts, 'file');
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(
      `Cannot read --file ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}.`,
    );
  }
}

const slugKey = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 120) || 'document';

function writeText(tenant: string, r: KnowledgeWriteResult): string {
  const lines = r.documents.map((d) => `  ${d.outcome.padEnd(9)} ${d.key} (id ${d.id})`);
  return [
    `Tenant ${tenant}: ${r.added} added, ${r.updated} updated, ${r.unchanged} unchanged.`,
    ...lines,
  ].join('\n');
}

export const KNOWLEDGE_COMMANDS: Command[] = [
  {
    name: 'knowledge add',
    synopsis: `--tenant S --kind K --title T (--body B | --file F) [--property REF] [--key KEY]`,
    summary: `Add a knowledge document (kinds: ${KNOWLEDGE_KINDS.join(', ')}); no --property: agency-wide`,
    required: ['tenant', 'kind', 'title'],
    optional: ['body', 'file', 'property', 'key'],
    check(opts) {
      checkKind(opts);
      if (opts.body === undefined && opts.file === undefined) throw new UsageError('Give --body or --file.');
    },
    async run(ctx, opts) {
      const tenant = str(opts, 'tenant');
      const title = str(opts, 'title');
      const r = await service(ctx).add(tenant, {
        key: optStr(opts, 'key') ?? slugKey(title),
        propertyRef: optStr(opts, 'property') ?? null,
        kind: str(opts, 'kind'),
        title,
        body: (await bodyOf(opts))!,
      });
      const d = r.documents[0]!;
      return {
        json: { tenant, ...d },
        text: `Added knowledge document ${d.id} (key ${d.key}) for ${tenant}.`,
      };
    },
  },
  {
    name: 'knowledge edit',
    synopsis: '--tenant S (--id N | --key KEY) [--kind K] [--title T] [--body B | --file F] [--property REF]',
    summary: 'Change a document; --property "" makes it agency-wide',
    required: ['tenant'],
    optional: ['id', 'key', 'kind', 'title', 'body', 'file', 'property'],
    check(opts) {
      documentRef(opts);
      checkKind(opts);
      if (['kind', 'title', 'body', 'file', 'property'].every((o) => opts[o as OptionName] === undefined)) {
        throw new UsageError('Nothing to change: give --kind, --title, --body, --file or --property.');
      }
    },
    async run(ctx, opts) {
      const tenant = str(opts, 'tenant');
      const property = optStr(opts, 'property');
      const body = await bodyOf(opts);
      const r = await service(ctx).edit(tenant, documentRef(opts), {
        ...(opts.kind !== undefined ? { kind: str(opts, 'kind') } : {}),
        ...(opts.title !== undefined ? { title: str(opts, 'title') } : {}),
        ...(body !== undefined ? { body } : {}),
        ...(property !== undefined ? { propertyRef: property || null } : {}),
      });
      const d = r.documents[0]!;
      return {
        json: { tenant, ...d },
        text:
          d.outcome === 'unchanged'
            ? `Knowledge document ${d.id} (key ${d.key}) already says that; nothing changed.`
            : `Updated knowledge document ${d.id} (key ${d.key}) of ${tenant}.`,
      };
    },
  },
  {
    name: 'knowledge remove',
    synopsis: '--tenant S (--id N | --key KEY)',
    summary: 'Remove a document (the gateway copies drop it at their next sync)',
    required: ['tenant'],
    optional: ['id', 'key'],
    check: (opts) => void documentRef(opts),
    async run(ctx, opts) {
      const tenant = str(opts, 'tenant');
      const r = await service(ctx).remove(tenant, documentRef(opts));
      return {
        json: { tenant, ...r },
        text: `Removed knowledge document ${r.id} (key ${r.key}): ${r.title}.`,
      };
    },
  },
  {
    name: 'knowledge import',
    synopsis: '<dir> --tenant S',
    summary:
      'Add or update a document per Markdown file of <dir> (front matter: title, kind, property, key); all or none',
    required: ['tenant', 'dir'],
    optional: [],
    argument: 'dir',
    async run(ctx, opts) {
      const tenant = str(opts, 'tenant');
      const documents = await readKnowledgeFolder(str(opts, 'dir'));
      const r = await service(ctx).upsert(tenant, documents);
      return { json: { tenant, ...r }, text: writeText(tenant, r) };
    },
  },
  {
    name: 'knowledge list',
    synopsis: '--tenant S [--deleted]',
    summary: "List a tenant's knowledge documents (--deleted: removed ones too)",
    required: ['tenant'],
    optional: ['deleted'],
    async run(ctx, opts) {
      const tenant = str(opts, 'tenant');
      const documents = await service(ctx).list(tenant, { includeDeleted: opts.deleted === true });
      const text = documents.length
        ? table(
            ['ID', 'KEY', 'PROPERTY', 'KIND', 'TITLE', 'UPDATED', 'STATE'],
            documents.map((d) => [
              String(d.id),
              d.key,
              d.property_ref ?? 'agency-wide',
              d.kind,
              d.title,
              when(d.updated_at),
              d.deleted_at ? `removed ${when(d.deleted_at)}` : 'current',
            ]),
          )
        : `Tenant ${tenant} has no knowledge documents. Import a folder with: npm run platform -- knowledge import <dir> --tenant ${tenant}`;
      return { json: { tenant, documents }, text };
    },
  },
];
