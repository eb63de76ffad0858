// Test helpers shared by every workspace's tests: `@pa/http-kit/testing`.
export * from './raw-http.ts';
export * from './redis-server.ts';
export * from './browser.ts';
export * from './time-scale.ts';
export * from './silent-server.ts';
