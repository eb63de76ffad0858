import type { WorkerMailbox, WorkerMailboxRequest } from '@pa/contracts';
import { BadGateway, Conflict, isUniqueViolation, NotFound, Unprocessable } from '@pa/http-kit';
import { BridgeError } from '../../clients/bridge/bridge-errors.ts';
import type { PlatformBridge } from '../../clients/bridge/platform-bridge-client.ts';
import type { BindingService } from '../binding/binding-service.ts';
import type { KeyCipher } from '../binding/key-cipher.ts';
import type { WorkersRepository } from '../workspace/workers-repository.ts';
import { type ImapAccount, type ImapConnectPolicy, tryImapLogin } from './imap-login.ts';
import { mailboxKey } from './mailbox-address.ts';
import { toApiMailbox } from './email-mapper.ts';
import type { MailboxesRepository } from './mailboxes-repository.ts';

// A worker's own mailboxes (docs/email.md). The one rule: the same mailbox is never read by both products. The
// platform never calls the gateway, so the gateway enforces it: before anything is saved it asks the bridge which
// addresses the platform polls for the worker's tenant, and refuses those; the bridge not answering refuses too
// (nothing is saved on a guess). Then the login is tried, and only a mailbox that logs in is kept.

export function createMailboxesService(deps: {
  mailboxes: MailboxesRepository;
  workers: WorkersRepository;
  binding: Pick<BindingService, 'credentials'>;
  platform: PlatformBridge;
  cipher: KeyCipher;
  imap: ImapConnectPolicy;
}) {
  const { mailboxes } = deps;

  /** The addresses the platform polls for the worker's tenant, by their rule key. */
  async function platformPolled(workerId: string): Promise<Map<string, string>> {
    const credentials = await deps.binding.credentials(workerId);
    if (!credentials) {
      throw new Unprocessable(
        'worker-not-bound',
        'Connect the assistant to your property platform first: the platform must be asked which mailboxes it already reads.',
      );
    }
    try {
      const { mailboxes: polled } = await credentials
        .watch(deps.platform.forKey(credentials.apiKey))
        .getMailboxes();
      return new Map(polled.map((m) => [mailboxKey(m.address), m.address]));
    } catch (err) {
      if (!(err instanceof BridgeError)) throw err;
      throw new BadGateway(
        'platform-unreachable',
        'The property platform could not be asked which mailboxes it reads, so nothing was saved. Try again in a moment.',
        { title: 'Platform unreachable' },
      );
    }
  }

  return {
    /** The addresses the platform polls for the worker's tenant (the sync re-checks the rule with it). */
    platformPolled,

    async add(workspaceId: string, workerId: string, request: WorkerMailboxRequest): Promise<WorkerMailbox> {
      await deps.workers.require(workspaceId, workerId);
      const key = mailboxKey(request.address);
      const polled = (await platformPolled(workerId)).get(key);
      if (polled) {
        throw new Conflict(
          'mailbox-owned-by-platform',
          `Your property platform already reads ${polled}, so Porter reads that mailbox's email through the platform. The same mailbox is never connected in both: connect another address, or stop the platform polling this one first.`,
        );
      }
      const held = await mailboxes.byKey(key);
      if (held) {
        throw new Conflict(
          'mailbox-already-connected',
          held.workerId === workerId
            ? `${held.address} is already connected to this assistant.`
            : `${held.address} is already connected to another assistant.`,
        );
      }
      const account: ImapAccount = {
        host: request.host,
        port: request.port,
        secure: request.secure,
        username: request.username,
        password: request.password,
      };
      await tryImapLogin(account, deps.imap);
      try {
        const row = await mailboxes.create({
          workerId,
          address: request.address.trim(),
          addressKey: key,
          host: request.host,
          port: request.port,
          secure: request.secure,
          username: request.username,
          passwordCiphertext: deps.cipher.encrypt(request.password),
        });
        return toApiMailbox(row);
      } catch (err) {
        // two connections of one address at once: the unique key keeps one
        if (isUniqueViolation(err)) {
          throw new Conflict('mailbox-already-connected', `${request.address} is already connected.`);
        }
        throw err;
      }
    },

    async list(workspaceId: string, workerId: string): Promise<WorkerMailbox[]> {
      await deps.workers.require(workspaceId, workerId);
      return (await mailboxes.list(workerId)).map(toApiMailbox);
    },

    async delete(workspaceId: string, workerId: string, mailboxId: string): Promise<void> {
      await deps.workers.require(workspaceId, workerId);
      if (!(await mailboxes.delete(workerId, mailboxId))) {
        throw new NotFound('mailbox-not-found', `No mailbox ${mailboxId} on this assistant.`);
      }
    },
  };
}
export type MailboxesService = ReturnType<typeof createMailboxesService>;
