import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError } from '@pa/http-kit';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import {
  decryptSecret,
  encryptSecret,
  generateWebhookSecret,
  parsePlatformSecretKey,
  resolvePlatformSecretKey,
} from '../src/features/webhooks/webhook-secret.ts';
import { retryDelayMs, RETRY_DELAYS_MS } from '../src/features/webhooks/retry-schedule.ts';

describe('signed-event configuration', () => {
  it('allows http to loopback by default, except with NODE_ENV=production; an explicit value wins', () => {
    expect(loadConfig({}).WEBHOOK_ALLOW_HTTP_LOOPBACK).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production' }).WEBHOOK_ALLOW_HTTP_LOOPBACK).toBe(false);
    expect(
      loadConfig({ NODE_ENV: 'production', WEBHOOK_ALLOW_HTTP_LOOPBACK: 'true' }).WEBHOOK_ALLOW_HTTP_LOOPBACK,
    ).toBe(true);
    expect(loadConfig({ WEBHOOK_ALLOW_HTTP_LOOPBACK: '0' }).WEBHOOK_ALLOW_HTTP_LOOPBACK).toBe(false);
    expect(loadConfig({}).WEBHOOK_TIMEOUT_MS).toBe(15_000);
  });

  it('reads WEBHOOK_INTERNAL_HOSTS as lower-case host names (none by default)', () => {
    expect(loadConfig({}).WEBHOOK_INTERNAL_HOSTS).toEqual([]);
    expect(
      loadConfig({ WEBHOOK_INTERNAL_HOSTS: ' Agent-Gateway, hooks.internal ,' }).WEBHOOK_INTERNAL_HOSTS,
    ).toEqual(['agent-gateway', 'hooks.internal']);
  });

  it('names each invalid setting on its own line', () => {
    let err: unknown;
    try {
      loadConfig({
        WEBHOOK_ALLOW_HTTP_LOOPBACK: 'maybe',
        WEBHOOK_TIMEOUT_MS: '5',
        PLATFORM_SECRET_KEY: 'short',
        WEBHOOK_INTERNAL_HOSTS: 'agent-gateway, http://x',
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const lines = (err as Error).message.split('\n');
    expect(lines.filter((l) => l.includes('WEBHOOK_ALLOW_HTTP_LOOPBACK'))).toHaveLength(1);
    expect(lines.filter((l) => l.includes('WEBHOOK_TIMEOUT_MS'))).toHaveLength(1);
    expect(lines.filter((l) => l.includes('PLATFORM_SECRET_KEY'))).toHaveLength(1);
    expect(lines.filter((l) => l.includes('WEBHOOK_INTERNAL_HOSTS'))).toHaveLength(1);
  });
});

describe('endpoint secrets', () => {
  it('round-trips through AES-256-GCM and fails with another key or a tampered row', () => {
    const key = parsePlatformSecretKey('ab'.repeat(32));
    const secret = generateWebhookSecret();
    const stored = encryptSecret(key, secret);
    expect(decryptSecret(key, stored)).toBe(secret);
    expect(() => decryptSecret(Buffer.alloc(32, 7), stored)).toThrow();
    const tampered = Uint8Array.from(stored);
    tampered[tampered.length - 1]! ^= 1;
    expect(() => decryptSecret(key, tampered)).toThrow();
    expect(() => parsePlatformSecretKey('too-short')).toThrow(/32 bytes/);
  });

  it('generates a key file once (mode 0600) and reads the same key back', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'platform-key-'));
    try {
      const first = resolvePlatformSecretKey(undefined, path.join(dir, 'data'));
      const second = resolvePlatformSecretKey(undefined, path.join(dir, 'data'));
      expect(first.generated).toBe(true);
      expect(second.key.equals(first.key)).toBe(true);
      const file = path.join(dir, 'data', 'platform-secret.key');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readFileSync(file, 'utf8').trim()).toBe(first.key.toString('hex'));
      expect(resolvePlatformSecretKey('cd'.repeat(32), dir)).toEqual({
        key: Buffer.alloc(32, 0xcd),
        generated: false,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('retry schedule', () => {
  it('waits about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 24 h (±20 %), then gives up', () => {
    expect(RETRY_DELAYS_MS.map((d) => retryDelayMs(RETRY_DELAYS_MS.indexOf(d) + 1, () => 0.5))).toEqual([
      ...RETRY_DELAYS_MS,
    ]);
    expect(retryDelayMs(1, () => 0)).toBe(4_000);
    expect(retryDelayMs(1, () => 0.999999)).toBeLessThanOrEqual(6_000);
    expect(retryDelayMs(7, () => 0.5)).toBe(24 * 3_600_000);
    expect(retryDelayMs(8)).toBeNull();
  });
});
