import type { EmbedKeyView } from '@pa/contracts';
import type { Gateway } from '../compose/gateway.ts';
import type { Config } from '../config.ts';
import { toApiEmbedKey } from '../features/embed/embed-mapper.ts';
import { embedSnippet } from '../features/embed/embed-snippet.ts';
import { existingWorkspace } from '../features/workspace/workspace-guard.ts';
import { embedKeyCreateRequest, embedKeyUpdateRequest } from './embed-key-usage.ts';

// `embed-keys create | list | update | revoke` (docs/embedding.md): the CLI acts as the operator, in the workspace
// it names, through the same service as the admin routes. A key edited or revoked here is followed by a running
// gateway within the service's cache time (5 seconds).

export async function runEmbedKeyCommand(
  gateway: Pick<Gateway, 'embedKeys' | 'repositories'>,
  config: Pick<Config, 'PUBLIC_BASE_URL' | 'HOST' | 'port'>,
  sub: string,
  values: Record<string, string | boolean | undefined>,
  origins: readonly string[],
): Promise<string> {
  const { embedKeys } = gateway;
  const json = values.json === true;
  const workspaceId = await existingWorkspace(gateway.repositories.workspaces, String(values.workspace));
  const workerId = String(values.worker);

  if (sub === 'create') {
    const made = embedKeyCreateRequest(values, origins);
    // main.ts has refused these arguments already
    if ('error' in made) throw new Error(made.error);
    const created = await embedKeys.create(workspaceId, workerId, made.request);
    const key = toApiEmbedKey(created.key);
    // Without PUBLIC_BASE_URL the CLI knows only where the gateway listens: fine for a try on this machine, and
    // said so, because a host page elsewhere needs the gateway's public https address.
    const baseUrl = config.PUBLIC_BASE_URL ?? `http://${urlHost(config.HOST)}:${config.port}`;
    const snippet = embedSnippet(baseUrl, created.embedKey);
    if (json)
      return JSON.stringify({
        key,
        embedKey: created.embedKey,
        visitorSecret: created.visitorSecret,
        snippet,
      });
    return [
      `Created embed key ${key.id}${key.label ? ` (${key.label})` : ''} for worker ${workerId}.`,
      describe(key),
      '',
      'Paste into the host page:',
      `  ${snippet}`,
      ...(config.PUBLIC_BASE_URL
        ? []
        : [
            `  (PUBLIC_BASE_URL is not set, so the address is where this gateway listens; a site elsewhere needs`,
            '   the gateway’s public https:// address instead.)',
          ]),
      '',
      `Embed key (public, in the page above): ${created.embedKey}`,
      `Visitor secret (for the host’s server only, to sign visitor tokens; never put it in a page):`,
      `  ${created.visitorSecret}`,
      'Both are shown this once: copy them now.',
    ].join('\n');
  }
  if (sub === 'update') {
    const edit = embedKeyUpdateRequest(values, origins);
    // main.ts has refused these arguments already
    if ('error' in edit) throw new Error(edit.error);
    const key = toApiEmbedKey(await embedKeys.update(workspaceId, workerId, String(values.id), edit.request));
    if (json) return JSON.stringify(key);
    return [
      `Updated embed key ${key.id}${key.label ? ` (${key.label})` : ''}.`,
      describe(key),
      'The key and the snippet stay the same; a running gateway follows within 5 seconds.',
    ].join('\n');
  }
  if (sub === 'revoke') {
    const key = toApiEmbedKey(await embedKeys.revoke(workspaceId, workerId, String(values.id)));
    return json ? JSON.stringify(key) : `Revoked embed key ${key.id}${key.label ? ` (${key.label})` : ''}.`;
  }
  const keys = (await embedKeys.list(workspaceId, workerId)).map(toApiEmbedKey);
  if (json) return JSON.stringify({ embedKeys: keys });
  return keys.map((k) => `${k.id}  ${k.label || '(no label)'}\n  ${describe(k)}`).join('\n') || '(none)';
}

/** One line: prefix, origins, toolset, who may visit, budgets, and when it was last used or revoked. */
function describe(k: EmbedKeyView): string {
  const state = k.revokedAt ? `revoked ${k.revokedAt}` : `last used ${k.lastUsedAt ?? 'never'}`;
  const { visitorPerMinute, ipPerMinute, workspacePerDay } = k.budgets;
  return [
    `${k.keyPrefix}…`,
    k.origins.join(' '),
    k.allowProposals ? 'can propose' : 'read-only',
    k.requireVisitorToken ? 'signed-in visitors only' : 'anonymous visitors too',
    `${visitorPerMinute}/visitor/min, ${ipPerMinute}/IP/min, ${workspacePerDay}/workspace/day`,
    state,
  ].join('  ');
}

/** HOST as the host part of a URL: a wildcard means this machine, an IPv6 address goes in brackets. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '[::]') return 'localhost';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}
