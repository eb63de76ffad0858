import { ChatResponse, ClearResponse, ProvidersResponse } from '@pa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectContract, expectProblem, postJson } from './support/http.ts';
import { GATEWAY_BACKENDS, startTestGateway, type TestGateway } from './support/test-app.ts';

describe.each(GATEWAY_BACKENDS)('web chat on %s', (_name, backend) => {
  let g: TestGateway;
  beforeAll(async () => {
    g = await startTestGateway({ backend, env: { CHAT_RATE_LIMIT_PER_MIN: '10000' } });
  });
  afterAll(async () => g?.close());

  const chat = (body: unknown, headers?: Record<string, string>) =>
    postJson(g.baseUrl, '/api/chat', body, headers);

  describe('POST /api/chat', () => {
    it('answers with the local provider and issues a session id', async () => {
      const res = await chat({ message: 'hello' });
      expect(res.status).toBe(200);
      const body = expectContract(ChatResponse, await res.json());
      expect(body.reply).toMatch(/^Hello!/);
      expect(body.sessionId).toMatch(/^s_[A-Za-z0-9_-]{22}$/);
      expect(body.provider).toBe('local');
      const session = await g.db.chatSession.findUniqueOrThrow({
        where: { channel_owner_externalId: { channel: 'web', owner: '', externalId: body.sessionId } },
        include: { turns: { orderBy: { seq: 'asc' } } },
      });
      expect(session.turns.map((t) => [t.role, t.status])).toEqual([
        ['user', 'complete'],
        ['assistant', 'complete'],
      ]);
      expect(session.turns[1]!.content).toBe(body.reply);
    });

    it('continues a session the client names, with its memory', async () => {
      const sessionId = `mem-${Date.now()}`;
      expectContract(ChatResponse, await (await chat({ message: 'my name is Grace', sessionId })).json());
      const body = expectContract(
        ChatResponse,
        await (await chat({ message: 'what is my name?', sessionId })).json(),
      );
      expect(body).toMatchObject({ sessionId, reply: 'Your name is **Grace**.' });
    });

    it('explains that it is not connected to the platform when asked about the portfolio', async () => {
      const body = expectContract(
        ChatResponse,
        await (await chat({ message: 'which gas safety certificates have expired?' })).json(),
      );
      expect(body.reply).toContain('I am not connected to your property platform yet');
    });

    it.each([
      ['an empty message', { message: '' }, '#/message'],
      ['a blank message', { message: '   ' }, '#/message'],
      ['a message over 8000 characters', { message: 'a'.repeat(8001) }, '#/message'],
      ['a message with a NUL character', { message: 'a\u0000b' }, '#/message'],
      ['a missing message', { sessionId: 'abc' }, '#/message'],
      ['a session id with bad characters', { message: 'hi', sessionId: 'bad id!' }, '#/sessionId'],
      ['a session id over 128 characters', { message: 'hi', sessionId: 'a'.repeat(129) }, '#/sessionId'],
      ['an unknown field', { message: 'hi', extra: true }, '#/extra'],
      ['a message that is not a string', { message: 42 }, '#/message'],
    ])('rejects %s with 400 validation-failed', async (_name, body, pointer) => {
      const p = await expectProblem(await chat(body), 400, 'validation-failed');
      expect(p.errors?.map((e) => e.pointer)).toContain(pointer);
    });

    it('accepts a message of exactly 8000 characters', async () => {
      expect((await chat({ message: 'a'.repeat(8000) })).status).toBe(200);
    });

    it('rejects an unknown provider with 400 unknown-provider and stores nothing', async () => {
      const sessionId = `unknown-provider-${Date.now()}`;
      const p = await expectProblem(
        await chat({ message: 'hi', sessionId, provider: 'nope' }),
        400,
        'unknown-provider',
      );
      expect(p.errors?.[0]?.pointer).toBe('#/provider');
      expect(await g.db.chatSession.count({ where: { externalId: sessionId } })).toBe(0);
    });

    it('rejects malformed JSON, a wrong content type and an oversized body', async () => {
      await expectProblem(await chat('{"message":'), 400, 'malformed-json');
      const text = await fetch(`${g.baseUrl}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: 'hi',
      });
      await expectProblem(text, 415, 'unsupported-media-type');
      await expectProblem(await chat({ message: 'a'.repeat(70 * 1024) }), 413, 'payload-too-large');
    });
  });

  describe('GET /api/providers', () => {
    it('lists the providers and the active one, per session', async () => {
      const all = expectContract(ProvidersResponse, await (await fetch(`${g.baseUrl}/api/providers`)).json());
      expect(all).toEqual({ providers: ['local'], active: 'local' });
      const unknown = await fetch(`${g.baseUrl}/api/providers?sessionId=never-seen`);
      expect(expectContract(ProvidersResponse, await unknown.json()).active).toBe('local');
      await expectProblem(
        await fetch(`${g.baseUrl}/api/providers?sessionId=bad%20id`),
        400,
        'validation-failed',
      );
    });
  });

  describe('POST /api/clear', () => {
    it('deletes the session’s turns so that memory starts afresh', async () => {
      const sessionId = `clear-${Date.now()}`;
      await chat({ message: 'my name is Alan', sessionId });
      const res = await postJson(g.baseUrl, '/api/clear', { sessionId });
      expect(expectContract(ClearResponse, await res.json())).toEqual({
        sessionId,
        cleared: true,
        turnsDeleted: 2,
      });
      const after = expectContract(
        ChatResponse,
        await (await chat({ message: 'what is my name?', sessionId })).json(),
      );
      expect(after.reply).toBe("You haven't told me your name yet.");
    });

    it('treats an unknown session as already clear', async () => {
      const res = await postJson(g.baseUrl, '/api/clear', { sessionId: 'never-existed' });
      expect(expectContract(ClearResponse, await res.json())).toEqual({
        sessionId: 'never-existed',
        cleared: true,
        turnsDeleted: 0,
      });
    });

    it('rejects a missing or bad session id', async () => {
      await expectProblem(await postJson(g.baseUrl, '/api/clear', {}), 400, 'validation-failed');
      await expectProblem(
        await postJson(g.baseUrl, '/api/clear', { sessionId: '../x' }),
        400,
        'validation-failed',
      );
    });
  });

  describe('the web UI and its headers', () => {
    it('serves the chat UI at / with a strict CSP and no inline script', async () => {
      const res = await fetch(`${g.baseUrl}/`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("connect-src 'self'");
      expect(csp).toContain("frame-ancestors 'self'");
      const html = await res.text();
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    });

    it('serves the Markdown and sanitiser modules from the gateway itself', async () => {
      for (const path of ['/vendor/marked.esm.js', '/vendor/purify.es.mjs']) {
        const res = await fetch(`${g.baseUrl}${path}`);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/javascript/);
      }
    });

    it('answers CORS from CORS_ORIGIN (default *) and echoes request ids', async () => {
      const res = await fetch(`${g.baseUrl}/api/providers`, {
        headers: { Origin: 'http://example.test', 'X-Request-Id': 'cors-1' },
      });
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('x-request-id')).toBe('cors-1');
    });
  });

  // PostgreSQL only: another gateway on the same database (the embedded one is its owner's alone)
  if (backend === 'postgres') {
    describe('configuration', () => {
      it('WEB_ENABLED=false removes the UI and the web chat routes, keeping health checks', async () => {
        const off = await startTestGateway({
          env: { WEB_ENABLED: 'false' },
          databaseUrl: g.databaseUrl,
          redis: 'none',
        });
        try {
          for (const [method, path] of [
            ['GET', '/'],
            ['POST', '/api/chat'],
            ['GET', '/api/chat/stream?message=hi'],
            ['GET', '/api/providers'],
            ['POST', '/api/clear'],
          ] as const) {
            await expectProblem(await fetch(`${off.baseUrl}${path}`, { method }), 404, 'not-found');
          }
          expect((await fetch(`${off.baseUrl}/healthz`)).status).toBe(200);
          expect((await fetch(`${off.baseUrl}/readyz`)).status).toBe(200);
        } finally {
          await off.close();
        }
      });

      it('CORS_ORIGIN lists the allowed origins', async () => {
        const strict = await startTestGateway({
          env: { CORS_ORIGIN: 'https://a.example, https://b.example' },
          databaseUrl: g.databaseUrl,
          redis: 'none',
        });
        try {
          const ok = await fetch(`${strict.baseUrl}/api/providers`, {
            headers: { Origin: 'https://b.example' },
          });
          expect(ok.headers.get('access-control-allow-origin')).toBe('https://b.example');
          const other = await fetch(`${strict.baseUrl}/api/providers`, {
            headers: { Origin: 'https://evil.example' },
          });
          expect(other.headers.get('access-control-allow-origin')).toBeNull();
        } finally {
          await strict.close();
        }
      });
    });
  }
});
