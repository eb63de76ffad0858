import { REMOTE_ACCESS_PAGE, REVIEW_QUEUE_PAGE } from '@pa/contracts';
import { DEMO_FLAGS_ON } from '../demo/demo-data.ts';
import { seedDemo } from '../demo/demo-seed.ts';
import { TENANT_FLAGS } from '../features/tenants/flags.ts';
import type { Command, OptionName, OptionValues } from './command.ts';
import { textTable as table } from '@pa/http-kit';
import { UsageError } from './usage-error.ts';
import { AUDIT_COMMANDS } from './audit-commands.ts';
import { KNOWLEDGE_COMMANDS } from './knowledge-commands.ts';
import { WEBHOOK_COMMANDS } from './webhook-commands.ts';

// The operator commands (docs/operations.md). Each returns the JSON object `--json` prints and the text a person
// reads; secrets are printed once, by the commands that create them, and never listed again.

const ONCE = 'Store this key now: it will not be shown again.';

const str = (opts: OptionValues, name: OptionName): string => {
  const v = opts[name];
  if (typeof v !== 'string') throw new UsageError(`--${name} needs a value.`);
  return v;
};
const optStr = (opts: OptionValues, name: OptionName): string | undefined =>
  opts[name] === undefined ? undefined : str(opts, name);

/** `--id` names a key: a positive PostgreSQL integer. */
function checkId(opts: OptionValues): void {
  const raw = str(opts, 'id');
  if (!/^[1-9]\d{0,9}$/.test(raw) || Number(raw) > 2_147_483_647) {
    throw new UsageError(`--id must be a key id (a positive integer), not "${raw}".`);
  }
}

/** `--scopes a,b` as a list; undefined when not given (the command's default). */
const scopeList = (opts: OptionValues): string[] | undefined =>
  optStr(opts, 'scopes')
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);

function keyText(what: string, k: { key: string; scopes: string[]; tenant: string }) {
  return [
    `Created ${what} for tenant ${k.tenant} (scopes: ${k.scopes.join(', ')}):`,
    '',
    `  ${k.key}`,
    '',
  ].join('\n');
}

export const COMMANDS: Command[] = [
  {
    name: 'tenants create',
    synopsis: '--slug S --name N',
    summary: 'Create a tenant',
    required: ['slug', 'name'],
    optional: [],
    async run({ admin }, opts) {
      const t = await admin.createTenant(str(opts, 'slug'), str(opts, 'name'));
      return { json: t, text: `Created tenant ${t.slug} (id ${t.id}): ${t.name}` };
    },
  },
  {
    name: 'tenants list',
    synopsis: '',
    summary: 'List tenants',
    required: [],
    optional: [],
    async run({ admin }) {
      const tenants = await admin.listTenants();
      const text = tenants.length
        ? table(
            ['ID', 'SLUG', 'NAME', 'CREATED'],
            tenants.map((t) => [String(t.id), t.slug, t.name, t.created_at]),
          )
        : 'No tenants yet. Create one with: npm run platform -- tenants create --slug S --name N';
      return { json: { tenants }, text };
    },
  },
  {
    name: 'flags set',
    synopsis: '--tenant S --flag F --on|--off',
    summary: 'Turn a tenant flag on or off',
    required: ['tenant', 'flag'],
    optional: ['on', 'off'],
    check(opts) {
      if (Boolean(opts.on) === Boolean(opts.off)) throw new UsageError('Give exactly one of --on or --off.');
    },
    async run({ admin }, opts) {
      const r = await admin.setFlag(str(opts, 'tenant'), str(opts, 'flag'), opts.on === true);
      return { json: r, text: `${r.flag} is now ${r.enabled ? 'on' : 'off'} for ${r.tenant}` };
    },
  },
  {
    name: 'flags list',
    synopsis: '--tenant S',
    summary: "Show a tenant's flags",
    required: ['tenant'],
    optional: [],
    async run({ admin }, opts) {
      const tenant = str(opts, 'tenant');
      const flags = await admin.listFlags(tenant);
      const text = table(
        ['FLAG', 'STATE'],
        Object.entries(flags).map(([f, on]) => [f, on ? 'on' : 'off']),
      );
      return { json: { tenant, flags }, text };
    },
  },
  {
    name: 'keys create',
    synopsis: '--tenant S [--scopes bridge:read,bridge:propose] [--label L]',
    summary: 'Create a remote API key for the bridge (shown once)',
    required: ['tenant'],
    optional: ['scopes', 'label'],
    async run({ admin }, opts) {
      const scopes = scopeList(opts);
      const label = optStr(opts, 'label');
      const k = await admin.createKey(str(opts, 'tenant'), scopes, label);
      return {
        json: { ...k, label: label ?? null },
        text: keyText(`remote API key ${k.id}`, k),
        notice: ONCE,
      };
    },
  },
  {
    name: 'keys list',
    synopsis: '--tenant S',
    summary: "List a tenant's keys (never the secrets)",
    required: ['tenant'],
    optional: [],
    async run({ admin }, opts) {
      const tenant = str(opts, 'tenant');
      const keys = await admin.listKeys(tenant);
      const text = keys.length
        ? table(
            ['ID', 'KIND', 'KEY', 'SCOPES', 'LABEL / ADMIN', 'LAST USED', 'STATE'],
            keys.map((k) => [
              String(k.id),
              k.kind,
              k.preview,
              k.scopes.join(','),
              k.label ?? k.admin_email ?? '',
              k.last_used_at ?? 'never',
              k.revoked_at ? `revoked ${k.revoked_at}` : 'active',
            ]),
          )
        : `Tenant ${tenant} has no keys.`;
      return { json: { tenant, keys }, text };
    },
  },
  {
    name: 'keys revoke',
    synopsis: '--id N',
    summary: 'Revoke a key; it stops working at once',
    required: ['id'],
    optional: [],
    check: checkId,
    async run({ admin }, opts) {
      const r = await admin.revokeKey(Number(str(opts, 'id')));
      return { json: r, text: `Key ${r.id} is revoked (since ${r.revoked_at}).` };
    },
  },
  {
    name: 'admins create',
    synopsis: '--tenant S --email E [--scopes review:read,review:write,access:manage]',
    summary:
      'Create an admin key (shown once; default review:read,review:write; access:manage opens the remote-access settings)',
    required: ['tenant', 'email'],
    optional: ['scopes'],
    async run({ admin }, opts) {
      const k = await admin.createAdmin(str(opts, 'tenant'), str(opts, 'email'), scopeList(opts));
      return { json: k, text: keyText(`admin key ${k.id} (${k.email})`, k), notice: ONCE };
    },
  },
  {
    name: 'admins list',
    synopsis: '--tenant S',
    summary: "List a tenant's review-queue admins (never the keys)",
    required: ['tenant'],
    optional: [],
    async run({ admin }, opts) {
      const tenant = str(opts, 'tenant');
      const admins = await admin.listAdmins(tenant);
      const text = admins.length
        ? table(
            ['ID', 'EMAIL', 'KEY', 'SCOPES', 'LAST USED', 'STATE'],
            admins.map((a) => [
              String(a.id),
              a.email ?? '',
              a.preview,
              a.scopes.join(','),
              a.last_used_at ?? 'never',
              a.revoked_at ? `revoked ${a.revoked_at}` : 'active',
            ]),
          )
        : `Tenant ${tenant} has no admins. Create one with: npm run platform -- admins create --tenant ${tenant} --email E`;
      return { json: { tenant, admins }, text };
    },
  },
  {
    name: 'admins revoke',
    synopsis: '--id N',
    summary: "Revoke an admin's key; it stops working at once",
    required: ['id'],
    optional: [],
    check: checkId,
    async run({ admin }, opts) {
      const r = await admin.revokeKey(Number(str(opts, 'id')), 'admin');
      return { json: r, text: `Admin key ${r.id} is revoked (since ${r.revoked_at}).` };
    },
  },
  {
    name: 'mailboxes add',
    synopsis: '--tenant S --address A',
    summary: 'Register a mailbox that the platform polls',
    required: ['tenant', 'address'],
    optional: [],
    async run({ admin }, opts) {
      const m = await admin.addMailbox(str(opts, 'tenant'), str(opts, 'address'));
      return { json: m, text: `Mailbox ${m.address} is registered for ${m.tenant}.` };
    },
  },
  ...WEBHOOK_COMMANDS,
  ...KNOWLEDGE_COMMANDS,
  ...AUDIT_COMMANDS,
  {
    name: 'demo seed',
    synopsis: '[--tenant S]',
    summary: `Provision the demo portfolio (default tenant demo-lettings) and turn on its flags ${DEMO_FLAGS_ON.join(', ')}; does nothing if it has properties`,
    required: [],
    optional: ['tenant'],
    async run({ db, clock }, opts) {
      const tenantSlug = optStr(opts, 'tenant');
      const r = await seedDemo({ db, clock }, tenantSlug ? { tenantSlug } : {});
      const c = r.counts;
      const summary = `${c.properties} properties, ${c.compliance_items} compliance items, ${c.deals} deals, ${c.emails} emails, ${c.financial_logs} financial logs, ${c.proposals} proposals, ${c.knowledge_documents} knowledge documents`;
      // The seed also switches the tenant's bridge on (a seed of an existing tenant's slug changes its flags):
      // said here, so that no operator learns it from the flags list later.
      const flagsTurnedOn = r.created ? [...DEMO_FLAGS_ON] : [];
      const text = r.created
        ? [
            `Seeded the demo for tenant ${r.tenant.slug} (id ${r.tenant.id}): ${summary}.`,
            `Turned on the tenant's flags ${flagsTurnedOn.join(', ')}; turn one off with: npm run platform -- flags set --tenant ${r.tenant.slug} --flag F --off`,
            // the two admin pages, and the key that opens both (without --scopes it opens the review queue only)
            `Its admins use ${REVIEW_QUEUE_PAGE} and ${REMOTE_ACCESS_PAGE} with a key from: npm run platform -- admins create --tenant ${r.tenant.slug} --email E --scopes review:read,review:write,access:manage`,
          ].join('\n')
        : `Tenant ${r.tenant.slug} already has properties (${summary}); left unchanged.`;
      return { json: { ...r, flagsTurnedOn }, text };
    },
  },
];

export function findCommand(group: string | undefined, action: string | undefined): Command | undefined {
  return COMMANDS.find((c) => c.name === `${group} ${action}`);
}

export function usage(): string {
  const lines = COMMANDS.map((c) => {
    const head = `  ${c.name}${c.synopsis ? ` ${c.synopsis}` : ''}`;
    return head.length <= 46 ? `${head.padEnd(48)}${c.summary}` : `${head}\n${' '.repeat(48)}${c.summary}`;
  });
  return [
    'Usage: npm run platform -- <command> [options] [--json]',
    '',
    'Commands:',
    ...lines,
    '',
    'Options:',
    '  --json       print exactly one JSON object on stdout',
    '  -h, --help   show this help',
    '',
    `Flags: ${TENANT_FLAGS.join(', ')}`,
    'Database: PLATFORM_DATABASE_URL; when unset, the embedded database in $PLATFORM_DATA_DIR/platform',
    '(through the running app when it is up).',
  ].join('\n');
}
