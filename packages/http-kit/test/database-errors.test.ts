import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { fromDatabase, ifNoneMatchMatches } from '../src/index.ts';

// Real failures of a real PostgreSQL (127.0.0.1:5432, or DATABASE_URL): outages are recognised, query errors not.

const url = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

async function failureOf(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

describe('fromDatabase', () => {
  it('a refused connection is database-unavailable with a Retry-After', async () => {
    const client = new pg.Client({ connectionString: 'postgresql://postgres@127.0.0.1:1/gone' });
    const err = await failureOf(() => client.connect());
    expect(fromDatabase(err)).toMatchObject({ code: 'database-unavailable', retryAfterSeconds: 5 });
  });

  it('a connection the server terminates is database-unavailable', async () => {
    const victim = new pg.Client({ connectionString: url });
    victim.on('error', () => {}); // the termination is also emitted as an event
    await victim.connect();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const pid = (await victim.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      const err = await failureOf(() => victim.query('SELECT 1'));
      expect(fromDatabase(err)?.code, String(err)).toBe('database-unavailable');
    } finally {
      await admin.end();
      await victim.end().catch(() => {});
    }
  });

  it('a query error (syntax, constraint) is not an outage', async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      expect(fromDatabase(await failureOf(() => client.query('SELEC 1')))).toBeUndefined();
      expect(fromDatabase(await failureOf(() => client.query('SELECT 1/0')))).toBeUndefined();
    } finally {
      await client.end();
    }
    expect(fromDatabase(new Error('something else'))).toBeUndefined();
  });
});

describe('ifNoneMatchMatches (RFC 9110 §13.1.2, weak comparison)', () => {
  it.each([
    ['W/"a"', 'W/"a"', true],
    ['"a"', 'W/"a"', true],
    ['W/"a"', '"a"', true],
    ['"x", W/"a"', 'W/"a"', true],
    ['*', 'W/"a"', true],
    ['"b"', 'W/"a"', false],
    ['a', 'W/"a"', false],
    ['', 'W/"a"', false],
  ])('If-None-Match %s against %s → %s', (header, etag, matches) => {
    expect(ifNoneMatchMatches(header, etag)).toBe(matches);
  });
});
