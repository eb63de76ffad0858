// The connection helpers are shared with the platform bridge (whose rate limits use Redis too).
export { connectRedis, redactRedisUrl, watchRedisConnection } from '@pa/http-kit';
