import { DeviceScope } from '@pa/contracts';

// The access commands' usage and argument checks, apart from their work so that `--help` and usage errors load
// nothing else (cli/main.ts imports the rest only when a command runs).

export const ACCESS_USAGE = `  pairing create --workspace ID [--scopes chat,workers:write,admin] [--label L] [--json]
                                          a one-use code (10 minutes) that pairs a device with the workspace
  devices list [--json]                   paired devices (never a token)
  devices revoke --id ID                  revoke a device at once`;

/** The usage error of an access command's arguments, or null when they are fine. */
export function accessUsageError(
  command: string,
  sub: string | undefined,
  values: Record<string, string | boolean | undefined>,
): string | null {
  if (command === 'pairing') {
    if (sub !== 'create') return 'pairing: create';
    if (!values.workspace) return 'pairing create needs --workspace';
    if (values.scopes !== undefined && parseScopes(String(values.scopes)) === null)
      return `--scopes: a comma-separated list of ${DeviceScope.options.join(', ')}`;
    const label = values.label;
    if (label !== undefined && (typeof label !== 'string' || !label.trim() || label.length > 100))
      return '--label: 1–100 characters';
    return null;
  }
  if (sub !== 'list' && sub !== 'revoke') return 'devices: list or revoke';
  if (sub === 'revoke' && !/^[0-9a-f-]{36}$/i.test(String(values.id ?? '')))
    return 'devices revoke needs --id UUID';
  return null;
}

export function parseScopes(text: string): DeviceScope[] | null {
  const scopes = text.split(',').map((s) => s.trim());
  if (!scopes.length || new Set(scopes).size !== scopes.length) return null;
  return scopes.every((s) => DeviceScope.safeParse(s).success) ? (scopes as DeviceScope[]) : null;
}
