import { randomUUID } from 'node:crypto';
import type { Channel, ChannelCreated, ConnectChannelRequest } from '@pa/contracts';
import { Conflict, isUniqueViolation, NotFound, Unprocessable } from '@pa/http-kit';
import type { Logger } from 'pino';
import type { WorkersRepository } from '../workspace/workers-repository.ts';
import type { ChannelConnector, ChannelConnectors } from './channel-connector.ts';
import { channelView } from './channel-mapper.ts';
import type { ChannelSecretsBox } from './channel-secrets.ts';
import type { ChannelRow, ChannelsRepository } from './channels-repository.ts';
import { newPairingCode, pairingExpiry, sha256 } from './pairing.ts';
import { describeError } from './safe-error.ts';

// Connecting, listing and disconnecting a worker's channels, and issuing pairing codes. The platform-specific
// parts are the connectors'; the worker is always looked up in the caller's workspace first (another workspace's
// worker is a 404, as on every worker route).
export function createChannelsService(deps: {
  channels: ChannelsRepository;
  workers: WorkersRepository;
  secrets: ChannelSecretsBox;
  connectors: ChannelConnectors;
  logger: Logger;
  now?: () => Date;
}) {
  const { channels, workers, secrets, connectors, logger } = deps;
  const now = deps.now ?? (() => new Date());

  async function requireChannel(workspaceId: string, workerId: string, channelId: string) {
    await workers.require(workspaceId, workerId);
    const channel = await channels.find(workerId, channelId);
    if (!channel) throw new NotFound('channel-not-found', `No channel ${channelId} on this worker.`);
    return channel;
  }

  function connectorOf(type: string): ChannelConnector {
    const connector = connectors[type];
    if (!connector)
      throw new Unprocessable('channel-type-unavailable', `This gateway cannot connect ${type} channels.`);
    return connector;
  }

  function pairingLink(connector: ChannelConnector, row: ChannelRow, code: string): string | null {
    return connector.pairingLink?.(row, code) ?? null;
  }

  return {
    async connect(
      workspaceId: string,
      workerId: string,
      request: ConnectChannelRequest,
    ): Promise<ChannelCreated> {
      await workers.require(workspaceId, workerId);
      const connector = connectorOf(request.type);
      const identity = await connector.connect(request);
      const code = newPairingCode();
      const expiresAt = pairingExpiry(now());
      const id = randomUUID();
      const row = await channels
        .replace(workerId, id, {
          type: request.type,
          mode: identity.mode,
          externalId: identity.externalId,
          botUsername: identity.botUsername,
          secretsCiphertext: secrets.seal(identity.secrets),
          webhookSecretHash: identity.webhookSecret ? sha256(identity.webhookSecret) : null,
          pairingCodeHash: sha256(code),
          pairingExpiresAt: expiresAt,
        })
        .catch((err: unknown) => {
          if (isUniqueViolation(err)) {
            throw new Conflict(
              'channel-already-connected',
              request.type === 'telegram'
                ? 'This bot is connected to another worker. Disconnect it there first.'
                : 'This number is connected to another worker. Disconnect it there first.',
            );
          }
          throw err;
        });
      try {
        await connector.activate?.(row, identity.secrets, identity.webhookSecret);
      } catch (err) {
        await channels.delete(workerId, id);
        throw err;
      }
      logger.info(
        { worker_id: workerId, channel_id: id, type: row.type, mode: row.mode },
        'channel connected, waiting for pairing',
      );
      return {
        ...channelView(row),
        status: 'pending_pairing',
        pairingCode: code,
        pairingExpiresAt: expiresAt.toISOString(),
        pairingLink: pairingLink(connector, row, code),
      };
    },

    async list(workspaceId: string, workerId: string): Promise<{ channels: Channel[] }> {
      await workers.require(workspaceId, workerId);
      return { channels: (await channels.list(workerId)).map(channelView) };
    },

    /** Deletes the channel; its chat sessions stay (they are the worker's memory of that chat). */
    async delete(workspaceId: string, workerId: string, channelId: string): Promise<void> {
      const channel = await requireChannel(workspaceId, workerId, channelId);
      const connector = connectors[channel.type];
      try {
        await connector?.disconnect(channel, secrets.open(channel.secretsCiphertext));
      } catch (err) {
        // The channel goes anyway: a webhook left behind only earns Telegram 404s.
        logger.warn(
          { channel_id: channelId, error: describeError(err) },
          'channel disconnect failed on the platform',
        );
      }
      await channels.delete(workerId, channelId);
    },

    async newPairingCode(workspaceId: string, workerId: string, channelId: string) {
      const channel = await requireChannel(workspaceId, workerId, channelId);
      const code = newPairingCode();
      const expiresAt = pairingExpiry(now());
      if (!(await channels.setPairingCode(workerId, channelId, sha256(code), expiresAt))) {
        throw new NotFound('channel-not-found', `No channel ${channelId} on this worker.`);
      }
      const connector = connectors[channel.type];
      return {
        channelId,
        pairingCode: code,
        pairingExpiresAt: expiresAt.toISOString(),
        pairingLink: connector ? pairingLink(connector, channel, code) : null,
      };
    },
  };
}
export type ChannelsService = ReturnType<typeof createChannelsService>;
