import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';

// The MCP endpoint's settings: origins as a browser sends them, the public origin without a trailing slash.

describe('MCP configuration', () => {
  it('reads MCP_ALLOWED_ORIGINS as a list of origins (none by default)', () => {
    expect(loadConfig({}).MCP_ALLOWED_ORIGINS).toEqual([]);
    expect(
      loadConfig({ MCP_ALLOWED_ORIGINS: 'https://Claude.ai, http://localhost:6274,' }).MCP_ALLOWED_ORIGINS,
    ).toEqual(['https://claude.ai', 'http://localhost:6274']);
  });

  it('refuses an origin with a path, and a public URL that is not http(s)', () => {
    expect(() => loadConfig({ MCP_ALLOWED_ORIGINS: 'https://claude.ai/app' })).toThrow(/MCP_ALLOWED_ORIGINS/);
    expect(() => loadConfig({ PLATFORM_PUBLIC_URL: 'ftp://x.example' })).toThrow(/PLATFORM_PUBLIC_URL/);
  });

  it('keeps PLATFORM_PUBLIC_URL without its trailing slash; empty is unset', () => {
    expect(loadConfig({ PLATFORM_PUBLIC_URL: 'https://platform.example.com/' }).PLATFORM_PUBLIC_URL).toBe(
      'https://platform.example.com',
    );
    expect(loadConfig({ PLATFORM_PUBLIC_URL: '' }).PLATFORM_PUBLIC_URL).toBeUndefined();
  });
});
