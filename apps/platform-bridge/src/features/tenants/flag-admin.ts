import type { TenantFlag } from '@pa/contracts';
import { NotFound } from '@pa/http-kit';
import type { Db } from '../../lib/db.ts';
import { createAccessAuditRepository } from './access-audit-repository.ts';
import { TENANT_FLAG_DESCRIPTIONS, TENANT_FLAGS, type TenantFlagName } from './flags.ts';
import { createTenantsRepository } from './tenants-repository.ts';

export function isTenantFlag(name: string): name is TenantFlagName {
  return (TENANT_FLAGS as readonly string[]).includes(name);
}

const view = (name: TenantFlagName, enabled: boolean): TenantFlag => ({
  name,
  enabled,
  description: TENANT_FLAG_DESCRIPTIONS[name],
});

// A tenant's assistant flags as its admins and the operator switch them. A switch that changes the value is
// written with its access-audit entry in one transaction; one that does not changes nothing and records nothing.
// Every key reads the flags with its own row (FIND_FOR_AUTH), so a switch applies from the next request.
export function createFlagAdmin(deps: { db: Db }) {
  const { db } = deps;
  const tenants = createTenantsRepository(db);
  const audit = createAccessAuditRepository(db);

  return {
    /** All four, in TENANT_FLAGS order; a flag never set is off. */
    async list(tenantId: number): Promise<TenantFlag[]> {
      const on = new Set((await tenants.listFlags(tenantId)).filter((r) => r.enabled).map((r) => r.flag));
      return TENANT_FLAGS.map((f) => view(f, on.has(f)));
    },

    /** 404 `unknown-flag` for a name that is not one of TENANT_FLAGS. */
    async set(tenantId: number, name: string, enabled: boolean, actor: string): Promise<TenantFlag> {
      if (!isTenantFlag(name)) {
        throw new NotFound('unknown-flag', `There is no flag "${name}". Flags: ${TENANT_FLAGS.join(', ')}.`);
      }
      await db.$transaction(async (tx) => {
        // without the lock two opposite switches both read the same `before`, and one change goes unaudited
        await tenants.lock(tenantId, tx);
        const before = (await tenants.listFlags(tenantId, tx)).find((r) => r.flag === name)?.enabled ?? false;
        await tenants.setFlag(tenantId, name, enabled, tx);
        if (before !== enabled) {
          await audit.record(
            tenantId,
            { actor, action: enabled ? 'flag.enabled' : 'flag.disabled', target: name },
            tx,
          );
        }
      });
      return view(name, enabled);
    },
  };
}
export type FlagAdmin = ReturnType<typeof createFlagAdmin>;
