import type { ADMIN_SCOPES, REMOTE_SCOPES } from '@pa/contracts';

// The scopes live in the contracts, where the admin API's schemas (remote-access.ts) validate them.
export { ADMIN_SCOPES, REMOTE_SCOPES } from '@pa/contracts';
export type RemoteScope = (typeof REMOTE_SCOPES)[number];
export type AdminScope = (typeof ADMIN_SCOPES)[number];
export type Scope = RemoteScope | AdminScope;
