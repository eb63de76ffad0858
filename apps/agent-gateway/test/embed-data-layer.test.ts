import { randomBytes } from 'node:crypto';
import { EMBED_KEY, EMBED_VISITOR_SECRET, EmbedKeyView } from '@pa/contracts';
import { createKeyCipher, sha256 } from '@pa/http-kit';
import { until } from '@pa/http-kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbedKeysRepository } from '../src/features/embed/embed-keys-repository.ts';
import { createEmbedKeysService, type EmbedKeysService } from '../src/features/embed/embed-keys-service.ts';
import { toApiEmbedKey } from '../src/features/embed/embed-mapper.ts';
import { expectContract } from './support/http.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';

// The embed keys' data layer (docs/embedding.md): what is stored, what is shown once, and how a presented key is
// found. The routes and the runtime have tests of their own (embed-keys-*.test.ts, embed-*.test.ts).

let g: TestGateway;
let service: EmbedKeysService;
beforeAll(async () => {
  g = await startTestGateway({ redis: 'none' });
  service = createEmbedKeysService({
    embedKeys: createEmbedKeysRepository(g.db),
    cipher: createKeyCipher(randomBytes(32)),
    onTouchError: (err) => {
      throw err;
    },
  });
});
afterAll(async () => {
  await g?.close();
});

async function worker() {
  const ws = await g.db.workspace.create({ data: { name: `embed-${Date.now()}` } });
  const w = await g.db.worker.create({ data: { workspaceId: ws.id, name: 'Front desk', skillPacks: [] } });
  return { workspaceId: ws.id, workerId: w.id };
}

async function problemOf(p: Promise<unknown>) {
  try {
    await p;
  } catch (err) {
    return err as { code: string; errors?: { pointer: string; detail: string }[] };
  }
  throw new Error('expected a rejection');
}

describe('embed keys service', () => {
  it('creates a key shown once, stores only its hash and the secret encrypted, and lists it without either', async () => {
    const { workspaceId, workerId } = await worker();
    const created = await service.create(workspaceId, workerId, {
      label: 'Property pages',
      origins: ['https://app.example.com', 'http://127.0.0.2:8080'],
    });
    expect(created.embedKey).toMatch(EMBED_KEY);
    expect(created.visitorSecret).toMatch(EMBED_VISITOR_SECRET);
    expect(created.key).toMatchObject({
      workspaceId,
      workerId,
      label: 'Property pages',
      origins: ['https://app.example.com', 'http://127.0.0.2:8080'],
      allowProposals: false,
      budgets: { visitorPerMinute: 10, ipPerMinute: 30, workspacePerDay: 2000 },
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(created.embedKey.startsWith(created.key.keyPrefix)).toBe(true);
    expect(created.key.keyPrefix).toHaveLength(8);

    const row = await g.db.embedKey.findUniqueOrThrow({ where: { id: created.key.id } });
    expect(Buffer.from(row.keyHash).equals(sha256(created.embedKey))).toBe(true);
    const stored = JSON.stringify(row, (_k, v: unknown) =>
      v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v,
    );
    expect(stored).not.toContain(created.embedKey);
    expect(stored).not.toContain(created.visitorSecret.slice(4));

    const listed = await service.list(workspaceId, workerId);
    expect(listed).toEqual([created.key]);
    const api = expectContract(EmbedKeyView, toApiEmbedKey(listed[0]!));
    expect(JSON.stringify(api)).not.toContain(created.embedKey);
  });

  it('authenticates the key with its secret as HS256 key bytes; null for malformed, unknown and revoked keys', async () => {
    const { workspaceId, workerId } = await worker();
    const created = await service.create(workspaceId, workerId, {
      origins: ['https://a.example'],
      allowProposals: true,
      budgets: { visitorPerMinute: 3 },
    });
    const active = await service.authenticate(created.embedKey);
    expect(active).toMatchObject({
      id: created.key.id,
      workerId,
      allowProposals: true,
      budgets: { visitorPerMinute: 3, ipPerMinute: 30, workspacePerDay: 2000 },
    });
    expect(Buffer.from(active!.secret).toString('utf8')).toBe(created.visitorSecret);
    // last use recorded (at most once a minute), by a write the call does not wait for
    await expect
      .poll(async () => (await g.db.embedKey.findUniqueOrThrow({ where: { id: created.key.id } })).lastUsedAt)
      .not.toBeNull();

    expect(await service.authenticate('gwe_nope')).toBeNull();
    const flipped = created.embedKey.slice(0, -1) + (created.embedKey.endsWith('A') ? 'B' : 'A');
    expect(await service.authenticate(flipped)).toBeNull();
    // right shape and checksum, same lookup prefix, another secret part: the hash decides
    const other = await service.create(workspaceId, workerId, { origins: ['https://a.example'] });
    expect(await service.authenticate(other.embedKey)).not.toBeNull();

    const revoked = await service.revoke(workspaceId, workerId, created.key.id);
    expect(revoked.revokedAt).toBeInstanceOf(Date);
    // the revoking instance forgets its cached key at once
    expect(await service.authenticate(created.embedKey)).toBeNull();
    // idempotent: the same view again
    expect(await service.revoke(workspaceId, workerId, created.key.id)).toEqual(revoked);
    expect((await service.list(workspaceId, workerId)).map((k) => k.id)).toEqual([
      other.key.id,
      created.key.id,
    ]);
  });

  it('remembers a key found unknown or revoked for a few seconds, instead of looking it up on every call', async () => {
    const { workspaceId, workerId } = await worker();
    const created = await service.create(workspaceId, workerId, { origins: ['https://a.example'] });
    await service.revoke(workspaceId, workerId, created.key.id);
    expect(await service.authenticate(created.embedKey)).toBeNull();
    // brought back behind the service's back (as if by another instance): this one does not look again at once…
    await g.db.embedKey.update({ where: { id: created.key.id }, data: { revokedAt: null } });
    expect(await service.authenticate(created.embedKey)).toBeNull();
    // …but within seconds
    const back = await until('the key looked up again', () => service.authenticate(created.embedKey), 15_000);
    expect(back?.id).toBe(created.key.id);
  });

  it('answers whether a live key names an origin from one read of them all, a few seconds behind another instance', async () => {
    const { workspaceId, workerId } = await worker();
    // a service of its own: its first answer is a fresh read
    const fresh = createEmbedKeysService({
      embedKeys: createEmbedKeysRepository(g.db),
      cipher: createKeyCipher(randomBytes(32)),
      onTouchError: (err) => {
        throw err;
      },
    });
    const [a, b] = [1, 2].map((n) => `https://o${n}-${randomBytes(4).toString('hex')}.example`) as [
      string,
      string,
    ];
    expect(await fresh.originAllowed(a)).toBe(false);
    // made on another instance: an origin not asked about before is still answered from that read, not a query of
    // its own (what keeps a flood of made-up origins off the database)…
    await service.create(workspaceId, workerId, { origins: [a, b] });
    expect(await fresh.originAllowed(b)).toBe(false);
    // …and the key is seen within seconds; its revocation on this instance at once
    await until('the new key’s origins read', () => fresh.originAllowed(b), 15_000);
    expect(await fresh.originAllowed(a)).toBe(true);
    const created = (await fresh.list(workspaceId, workerId))[0]!;
    await fresh.revoke(workspaceId, workerId, created.id);
    expect(await fresh.originAllowed(a)).toBe(false);
  });

  it('answers from the last read while a read fails, and tries again only once that answer is stale', async () => {
    const { workspaceId, workerId } = await worker();
    let clock = Date.now();
    const instance = () =>
      createEmbedKeysService({
        embedKeys: createEmbedKeysRepository(g.db),
        cipher: createKeyCipher(randomBytes(32)),
        onTouchError: (err) => {
          throw err;
        },
        now: () => new Date(clock),
      });
    const fresh = instance();
    const [kept, later] = ['kept', 'later'].map(
      (n) => `https://${n}-${randomBytes(4).toString('hex')}.example`,
    ) as [string, string];
    await service.create(workspaceId, workerId, { origins: [kept] });
    expect(await fresh.originAllowed(kept)).toBe(true);
    // the table out of reach: every read fails, as with the database away
    await g.db.$executeRawUnsafe('ALTER TABLE embed_keys RENAME TO embed_keys_away');
    try {
      clock += 6_000;
      expect(await fresh.originAllowed(kept)).toBe(true);
      expect(await fresh.originAllowed(later)).toBe(false);
      // an instance that never read has nothing to answer from
      await expect(instance().originAllowed(kept)).rejects.toThrow();
    } finally {
      await g.db.$executeRawUnsafe('ALTER TABLE embed_keys_away RENAME TO embed_keys');
    }
    // the failed read is kept as long as a good one: a key made meanwhile on another instance is not seen…
    await service.create(workspaceId, workerId, { origins: [later] });
    expect(await fresh.originAllowed(later)).toBe(false);
    // …until it is stale, when the next call reads again
    clock += 6_000;
    expect(await fresh.originAllowed(later)).toBe(true);
  });

  it('reads the workspace’s daily budget as the smallest among its live keys', async () => {
    const { workspaceId, workerId } = await worker();
    const large = await service.create(workspaceId, workerId, {
      origins: ['https://a.example'],
      budgets: { workspacePerDay: 500 },
    });
    expect((await service.authenticate(large.embedKey))?.workspaceDayLimit).toBe(500);
    const small = await service.create(workspaceId, workerId, {
      origins: ['https://a.example'],
      budgets: { workspacePerDay: 40 },
    });
    // a new key of the workspace is seen at once by the instance that made it
    expect((await service.authenticate(large.embedKey))?.workspaceDayLimit).toBe(40);
    expect((await service.authenticate(small.embedKey))?.workspaceDayLimit).toBe(40);
    // another workspace's keys play no part
    const elsewhere = await worker();
    await service.create(elsewhere.workspaceId, elsewhere.workerId, {
      origins: ['https://a.example'],
      budgets: { workspacePerDay: 1 },
    });
    await service.revoke(workspaceId, workerId, small.key.id);
    expect((await service.authenticate(large.embedKey))?.workspaceDayLimit).toBe(500);
  });

  it('makes a key that may propose require a visitor token, and refuses one told not to', async () => {
    const { workspaceId, workerId } = await worker();
    const proposing = await service.create(workspaceId, workerId, {
      origins: ['https://a.example'],
      allowProposals: true,
    });
    expect(proposing.key).toMatchObject({ allowProposals: true, requireVisitorToken: true });
    const readOnly = await service.create(workspaceId, workerId, { origins: ['https://a.example'] });
    expect(readOnly.key).toMatchObject({ allowProposals: false, requireVisitorToken: false });
    const err = await problemOf(
      service.create(workspaceId, workerId, {
        origins: ['https://a.example'],
        allowProposals: true,
        requireVisitorToken: false,
      }),
    );
    expect(err.code).toBe('embed-proposals-need-token');
    expect(err.errors?.[0]?.pointer).toBe('#/requireVisitorToken');
    expect(await g.db.embedKey.count({ where: { workerId } })).toBe(2);
  });

  it('refuses bad origins and budgets with field errors, another workspace’s worker, and a 21st live key', async () => {
    const { workspaceId, workerId } = await worker();
    for (const origins of [
      ['*'],
      ['http://example.com'],
      ['https://example.com/'],
      ['https://example.com/page'],
      ['https://*.example.com'],
      [],
      Array.from({ length: 11 }, (_, i) => `https://s${i}.example.com`),
      ['https://a.example', 'https://a.example'],
    ]) {
      const err = await problemOf(service.create(workspaceId, workerId, { origins }));
      expect(err.code, JSON.stringify(origins)).toBe('validation-failed');
      expect(err.errors?.[0]?.pointer).toMatch(/^#\/origins/);
    }
    const budget = await problemOf(
      service.create(workspaceId, workerId, { origins: ['https://a.example'], budgets: { ipPerMinute: 0 } }),
    );
    expect(budget.errors).toEqual([{ pointer: '#/budgets/ipPerMinute', detail: 'must be at least 1' }]);

    const elsewhere = await worker();
    expect(
      (await problemOf(service.create(elsewhere.workspaceId, workerId, { origins: ['https://a.example'] })))
        .code,
    ).toBe('worker-not-found');
    expect((await problemOf(service.list(elsewhere.workspaceId, workerId))).code).toBe('worker-not-found');

    const keys = await Promise.all(
      Array.from({ length: 20 }, () =>
        service.create(workspaceId, workerId, { origins: ['https://a.example'] }),
      ),
    );
    expect(
      (await problemOf(service.create(workspaceId, workerId, { origins: ['https://a.example'] }))).code,
    ).toBe('embed-key-limit');
    // a revoked key no longer counts
    await service.revoke(workspaceId, workerId, keys[0]!.key.id);
    await service.create(workspaceId, workerId, { origins: ['https://a.example'] });
    expect((await problemOf(service.revoke(elsewhere.workspaceId, workerId, keys[1]!.key.id))).code).toBe(
      'worker-not-found',
    );
    expect(
      (await problemOf(service.revoke(workspaceId, workerId, '00000000-0000-4000-8000-000000000000'))).code,
    ).toBe('embed-key-not-found');
  });
});
