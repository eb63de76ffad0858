import { z } from 'zod';
import { text } from './text.ts';
import { DeviceScope } from './access.ts';
import { TenantSlug } from './params.ts';

// Workspaces, assistant workers and their platform binding (the agent platform's side; camelCase JSON).

export const SKILL_PACKS = ['property-uk'] as const;
export const WORKER_TEMPLATES = ['property-manager'] as const;

export const WorkspaceIdHeader = z.uuid('X-Workspace-Id must be a workspace UUID');
export const WorkerIdParams = z.strictObject({ workerId: z.uuid('must be a worker UUID') });

export const CreateWorkerRequest = z.strictObject({
  name: text().trim().min(1).max(100),
  template: z
    .enum(WORKER_TEMPLATES)
    .optional()
    .describe('`property-manager` includes the `property-uk` pack'),
  skillPacks: z.array(z.enum(SKILL_PACKS)).max(10).optional(),
});

export const Worker = z.strictObject({
  id: z.uuid(),
  workspaceId: z.uuid(),
  name: text(),
  template: z.enum(WORKER_TEMPLATES).nullable(),
  skillPacks: z.array(z.enum(SKILL_PACKS)),
  bound: z.boolean().describe('whether a platform tenant is bound'),
  createdAt: z.iso.datetime(),
});
export const WorkersResponse = z.strictObject({ workers: z.array(Worker) });

export const BindRequest = z.strictObject({
  tenantSlug: TenantSlug,
  apiKey: text().min(1).max(200),
});

export const BindResponse = z.strictObject({
  workerId: z.uuid(),
  tenantSlug: text(),
  keyPreview: text(),
  boundAt: z.iso.datetime(),
  smokeTest: z.strictObject({ ok: z.literal(true), propertiesTotal: z.number().int().min(0) }),
});

export const BindingResponse = z.strictObject({
  workerId: z.uuid(),
  tenantSlug: text(),
  keyPreview: text(),
  boundAt: z.iso.datetime(),
  propertiesTotal: z.number().int().min(0).describe('at the last successful smoke test'),
  keyRefusedAt: z.iso
    .datetime()
    .nullable()
    .describe(
      'when the platform began refusing the key (401: revoked or unknown) on the worker’s calls; null while it ' +
        'accepts it. Cleared by a call the key passes again or by a new bind',
    ),
});

export const UnbindResponse = z.strictObject({ workerId: z.uuid(), unbound: z.boolean() });

export type Worker = z.infer<typeof Worker>;
export type BindResponse = z.infer<typeof BindResponse>;
export type BindingResponse = z.infer<typeof BindingResponse>;

export const WebContextAccess = z
  .strictObject({
    mode: z.enum(['none', 'token']).describe('GATEWAY_AUTH'),
    caller: z
      .enum(['operator', 'device', 'anonymous'])
      .describe('`anonymous` with mode `token`: this browser must pair before it can chat'),
    scopes: z.array(DeviceScope).describe('what the caller may do (the operator: every scope)'),
    deviceId: z.uuid().nullable().describe('the paired device asking, so that the page can mark it in lists'),
  })
  .describe('who is asking, so that the page shows the pairing screen or only what the caller may use');

export const WebContextResponse = z.strictObject({
  workspaceId: z
    .uuid()
    .nullable()
    .describe('the workspace of the worker the web chat talks to; null for an anonymous caller'),
  access: WebContextAccess,
  worker: Worker.nullable(),
  features: z
    .strictObject({
      dailySummary: z.boolean().describe('ASSISTANT_DAILY_SUMMARY_ENABLED: the daily summary routes answer'),
      platformEvents: z
        .boolean()
        .describe('PLATFORM_EVENT_WEBHOOKS: the platform’s signed events reach the workers’ feeds'),
      email: z
        .boolean()
        .describe('EMAIL_INGESTION_ENABLED: a worker may connect mailboxes the platform does not read'),
    })
    .describe('which optional parts of the gateway are on, so that the page offers only those'),
});
