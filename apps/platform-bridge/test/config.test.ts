import { describe, expect, it } from 'vitest';
import { ConfigError } from '@pa/http-kit';
import { loadConfig } from '../src/config.ts';

describe('configuration', () => {
  it('has defaults for everything', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      PLATFORM_PORT: 4000,
      PLATFORM_HOST: '127.0.0.1',
      BRIDGE_RATE_LIMIT_PER_MIN: 600,
      DEMO: true,
    });
    expect(c.PLATFORM_DATABASE_URL).toBeUndefined();
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('treats an empty database URL as unset (the embedded database)', () => {
    expect(loadConfig({ PLATFORM_DATABASE_URL: '' }).PLATFORM_DATABASE_URL).toBeUndefined();
  });

  it('reports every problem at once, one line each', () => {
    expect(() =>
      loadConfig({
        PLATFORM_PORT: 'eighty',
        PLATFORM_DATABASE_URL: 'mysql://x',
        DEMO: 'maybe',
        BRIDGE_RATE_LIMIT_PER_MIN: '0',
      }),
    ).toThrow(ConfigError);
    try {
      loadConfig({ PLATFORM_PORT: 'eighty', PLATFORM_DATABASE_URL: 'mysql://x', DEMO: 'maybe' });
    } catch (err) {
      const lines = (err as Error).message.split('\n').slice(1);
      expect(lines).toHaveLength(3);
      expect(lines.join('\n')).toMatch(
        /PLATFORM_PORT[\s\S]*PLATFORM_DATABASE_URL: must be a postgresql:\/\/ URL[\s\S]*DEMO/,
      );
    }
  });
});
