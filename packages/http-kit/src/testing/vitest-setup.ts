// Vitest setup file (vitest.config.ts `setupFiles`), run before each test file: the default test and hook
// timeouts and expect.poll's default deadline, stretched by the load when the file starts (see time-scale.ts).
// A timeout a test gives itself is its own.
import { vi } from 'vitest';
import { scaled } from './time-scale.ts';

vi.setConfig({
  testTimeout: scaled(20_000),
  hookTimeout: scaled(60_000),
  expect: { poll: { timeout: scaled(1_000) } },
});
