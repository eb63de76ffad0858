export const REMOTE_SCOPES = ['bridge:read', 'bridge:propose'] as const;
export const ADMIN_SCOPES = ['review:read', 'review:write'] as const;
export type RemoteScope = (typeof REMOTE_SCOPES)[number];
export type AdminScope = (typeof ADMIN_SCOPES)[number];
export type Scope = RemoteScope | AdminScope;
