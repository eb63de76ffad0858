import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMailboxSyncer } from '../src/features/email/mailbox-syncer.ts';
import { syncMailbox } from '../src/features/email/mailbox-sync.ts';
import { createMailboxSyncRepository } from '../src/features/email/mailbox-sync-repository.ts';
import { composeGateway } from '../src/compose/gateway.ts';
import { startWorkerProcess } from '../src/compose/worker-process.ts';
import { bindWorker, type BoundWorker } from './support/bound-worker.ts';
import { message, startDovecot, type TestImap } from './support/dovecot.ts';
import { connectMailbox } from './support/mailbox.ts';
import { type PlatformForGateway, startPlatformForGateway } from './support/platform.ts';
import { GATEWAY_BACKENDS, startTestGateway, type TestGateway } from './support/test-app.ts';
import { scaled } from '@pa/http-kit/testing';

// The sync of an assistant-held mailbox (docs/email.md) against a real Dovecot and the real bridge: new messages
// taken in with a snippet only, a restart fetching nothing twice, the server down and back, and the platform
// starting to poll the address.

describe.each(GATEWAY_BACKENDS)('mailbox sync on %s', (_name, backend) => {
  let platform: PlatformForGateway;
  let imap: TestImap;
  let g: TestGateway;
  let tenant: Awaited<ReturnType<PlatformForGateway['createTenant']>>;
  let worker: BoundWorker;
  let mailboxId: string;

  beforeAll(async () => {
    [platform, imap] = await Promise.all([startPlatformForGateway(), startDovecot()]);
    g = await startTestGateway({
      backend,
      redis: 'none',
      env: {
        AI_WORKERS_ENABLED: 'true',
        PLATFORM_BRIDGE_ENABLED: 'true',
        EMAIL_INGESTION_ENABLED: 'true',
        PLATFORM_BASE_URL: platform.baseUrl,
        IMAP_TIMEOUT_MS: '3000',
        // the test's Dovecot on loopback stands for a mail server on the operator's own network
        IMAP_INTERNAL_HOSTS: '127.0.0.1',
        EMAIL_POLL_MS: '200',
        // the tests drive the syncs themselves
        RUN_WORKER_IN_PROCESS: 'false',
      },
    });
    tenant = await platform.createTenant();
    worker = await bindWorker(g, tenant);
    mailboxId = await connectMailbox(g, worker, imap);
  }, scaled(60_000));
  afterAll(async () => {
    await g?.close();
    await imap?.close();
    await platform?.close();
  });

  const stored = () => g.db.emailMessage.findMany({ where: { mailboxId }, orderBy: { uid: 'asc' } });
  const mailbox = () => g.db.mailbox.findUniqueOrThrow({ where: { id: mailboxId } });

  describe('syncing an assistant-held mailbox', () => {
    it('takes in new messages: envelope and a snippet of at most 255 characters, never the body', async () => {
      const long = `Dear Porter,\n\nThe boiler at 14 Oak Street failed its service. ${'More detail follows. '.repeat(60)}END-OF-BODY-MARKER`;
      await imap.append(
        message({
          from: 'Gas Engineer <engineer@boilers.test>',
          to: imap.user,
          subject: 'CP12 for 14 Oak Street',
          body: long,
        }),
      );
      await imap.append(
        [
          'From: Contractor <jobs@repairs.test>',
          `To: ${imap.user}`,
          'Subject: Invoice 2291',
          'MIME-Version: 1.0',
          'Content-Type: multipart/mixed; boundary="b1"',
          '',
          '--b1',
          'Content-Type: text/plain; charset=utf-8',
          '',
          'Please find the invoice attached.',
          '--b1',
          'Content-Type: application/pdf; name="invoice-2291.pdf"',
          'Content-Disposition: attachment; filename="invoice-2291.pdf"',
          'Content-Transfer-Encoding: base64',
          '',
          Buffer.from('%PDF-1.4 fake').toString('base64'),
          '--b1--',
          '',
        ].join('\r\n'),
      );
      const deps = composeGateway(g.deps).mailboxSync;
      expect(await syncMailbox(deps, mailboxId)).toEqual({ outcome: 'synced', fetched: 2 });
      const rows = await stored();
      expect(rows.map((r) => r.subject)).toEqual(['CP12 for 14 Oak Street', 'Invoice 2291']);
      expect(rows[0]).toMatchObject({
        fromAddress: 'engineer@boilers.test',
        fromName: 'Gas Engineer',
        toAddresses: [imap.user],
      });
      expect(rows[0]!.snippet.length).toBeLessThanOrEqual(255);
      expect(rows[0]!.snippet).toMatch(/^Dear Porter, The boiler at 14 Oak Street failed its service\./);
      // nothing of the body past the snippet is kept anywhere in the row
      expect(
        JSON.stringify(rows[0], (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)),
      ).not.toContain('END-OF-BODY-MARKER');
      expect(rows[1]).toMatchObject({
        snippet: 'Please find the invoice attached.',
        attachmentNames: ['invoice-2291.pdf'],
      });
      expect(await mailbox()).toMatchObject({ messagesStored: 2, status: 'active', lastError: null });
      expect((await mailbox()).lastSyncAt).not.toBeNull();
    });

    it('a restart (a fresh process’s sync) fetches nothing twice, and then only what is new', async () => {
      const fresh = composeGateway(g.deps).mailboxSync;
      expect(await syncMailbox(fresh, mailboxId)).toEqual({ outcome: 'synced', fetched: 0 });
      await imap.append(
        message({ from: 'tenant@flat2.test', to: imap.user, subject: 'Rent for June', body: 'Paid today.' }),
      );
      expect(await syncMailbox(fresh, mailboxId)).toEqual({ outcome: 'synced', fetched: 1 });
      expect((await stored()).map((r) => r.subject)).toEqual([
        'CP12 for 14 Oak Street',
        'Invoice 2291',
        'Rent for June',
      ]);
    });

    it('records the server being down in words and waits; takes the new mail in once it is back', async () => {
      const deps = composeGateway(g.deps).mailboxSync;
      await imap.stop();
      const down = await syncMailbox(deps, mailboxId);
      expect(down).toEqual({
        outcome: 'failed',
        error: expect.stringContaining('no IMAP server answered at that server and port'),
      });
      const failed = await mailbox();
      expect(failed).toMatchObject({ status: 'error', failures: 1 });
      expect(failed.lastError).toContain('Porter could not read the mailbox');
      expect(failed.nextSyncAt!.getTime()).toBeGreaterThan(Date.now());

      await imap.start();
      await imap.append(
        message({
          from: 'council@city.test',
          to: imap.user,
          subject: 'HMO licence renewal',
          body: 'Due soon.',
        }),
      );
      expect(await syncMailbox(deps, mailboxId)).toEqual({ outcome: 'synced', fetched: 1 });
      expect(await mailbox()).toMatchObject({
        status: 'active',
        failures: 0,
        lastError: null,
        nextSyncAt: null,
        messagesStored: 4,
      });
    });

    it('one sync at a time: a mailbox being synced elsewhere is left alone', async () => {
      await g.db.mailbox.update({
        where: { id: mailboxId },
        data: { syncLockedUntil: new Date(Date.now() + 60_000) },
      });
      expect(await syncMailbox(composeGateway(g.deps).mailboxSync, mailboxId)).toEqual({ outcome: 'busy' });
      await g.db.mailbox.update({ where: { id: mailboxId }, data: { syncLockedUntil: null } });
    });

    it('the worker process syncs due mailboxes on its own', async () => {
      await imap.append(
        message({ from: 'agent@lets.test', to: imap.user, subject: 'Tenancy renewal', body: 'Sign here.' }),
      );
      const worker = startWorkerProcess(composeGateway(g.deps));
      try {
        await expect
          .poll(async () => (await stored()).map((r) => r.subject), { timeout: scaled(10_000) })
          .toContain('Tenancy renewal');
      } finally {
        await worker.stop();
      }
    });

    it('IDLE: new mail is taken in as the server announces it, long before the next poll', async () => {
      // an hour between polls: only the IDLE connection can bring this message in within the test
      const syncer = startMailboxSyncer(composeGateway(g.deps).mailboxSync, 3_600_000);
      try {
        await expect.poll(() => syncer.watching(), { timeout: scaled(10_000) }).toEqual([mailboxId]);
        const before = (await mailbox()).messagesStored;
        await imap.append(
          message({
            from: 'tenant@flat9.test',
            to: imap.user,
            subject: 'Key safe code?',
            body: 'What is it?',
          }),
        );
        await expect
          .poll(async () => (await stored()).map((r) => r.subject), { timeout: scaled(10_000) })
          .toContain('Key safe code?');
        expect((await mailbox()).messagesStored).toBe(before + 1);
      } finally {
        await syncer.stop();
      }
      expect(syncer.watching()).toEqual([]);
    });

    it('a sync that ends after the mailbox was stopped elsewhere leaves it stopped, with its reason', async () => {
      const repo = createMailboxSyncRepository(g.db);
      const leased = await repo.lease(mailboxId, 60_000);
      expect(leased).toBeDefined();
      // meanwhile another process stops it (the platform took the address over)
      await repo.stop(mailboxId, 'taken over');
      await repo.storeSync(mailboxId, [], {
        uidValidity: leased!.uid_validity ?? 0n,
        lastUid: leased!.last_uid ?? 0n,
      });
      expect(await mailbox()).toMatchObject({
        status: 'stopped',
        lastError: 'taken over',
        syncLockedUntil: null,
      });
      await repo.recordFailure(mailboxId, 'The server did not answer.', 1, new Date());
      expect(await mailbox()).toMatchObject({
        status: 'stopped',
        lastError: 'taken over',
        syncLockedUntil: null,
      });
      await g.db.mailbox.update({ where: { id: mailboxId }, data: { status: 'active', lastError: null } });
    });

    it('stops, with the reason, when the platform starts polling the address; nothing more is fetched', async () => {
      await platform.admin.addMailbox(tenant.slug, imap.user.replace('@', '+alerts@').toUpperCase());
      await imap.append(
        message({ from: 'x@y.test', to: imap.user, subject: 'After the platform took over', body: '...' }),
      );
      const deps = composeGateway(g.deps).mailboxSync;
      expect(await syncMailbox(deps, mailboxId)).toEqual({ outcome: 'stopped' });
      const stopped = await mailbox();
      expect(stopped.status).toBe('stopped');
      expect(stopped.lastError).toMatch(/^Your property platform now reads .+, so Porter stopped reading it/);
      expect((await stored()).map((r) => r.subject)).not.toContain('After the platform took over');
      // a stopped mailbox is not synced again
      expect(await syncMailbox(deps, mailboxId)).toEqual({ outcome: 'busy' });
    });
  });

  describe('a server that does not offer IDLE', () => {
    it('is left to the poll: no IDLE connection is kept, and new mail still comes in', async () => {
      const plain = await startDovecot({ idle: false, user: 'plain@example.test' });
      const syncer = startMailboxSyncer(composeGateway(g.deps).mailboxSync, 300);
      try {
        const id = await connectMailbox(g, await bindWorker(g, tenant), plain);
        await expect.poll(() => syncer.withoutIdle(), { timeout: scaled(10_000) }).toContain(id);
        expect(syncer.watching()).not.toContain(id);
        await plain.append(
          message({ from: 'tenant@flat4.test', to: plain.user, subject: 'Boiler fixed?', body: 'Is it?' }),
        );
        await expect
          .poll(
            async () =>
              (await g.db.emailMessage.findMany({ where: { mailboxId: id } })).map((r) => r.subject),
            { timeout: scaled(10_000) },
          )
          .toEqual(['Boiler fixed?']);
        expect(syncer.watching()).not.toContain(id);
      } finally {
        await syncer.stop();
        await plain.close();
      }
    });
  });
});
