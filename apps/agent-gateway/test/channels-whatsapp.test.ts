import { randomInt } from 'node:crypto';
import { ChannelCreated, ChannelsResponse } from '@pa/contracts';
import { until } from '@pa/http-kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../src/features/channels/pairing.ts';
import { formatForWhatsApp } from '../src/features/channels/whatsapp/whatsapp-format.ts';
import { type BoundWorker, bindWorker } from './support/bound-worker.ts';
import { capturedLogger, type ChannelWorker, channelWorker } from './support/channels.ts';
import { FakeWhatsApp, type FakeNumber, metaJson, signatureOf } from './support/fake-whatsapp.ts';
import { expectContract, expectProblem } from './support/http.ts';
import { type PlatformForGateway, startPlatformForGateway } from './support/platform.ts';
import { startTestGateway, type TestGateway } from './support/test-app.ts';

// WhatsApp Cloud API channels (docs/channels.md) end to end: the real gateway on its own PostgreSQL database, the real
// platform bridge behind the worker's tools, and a loopback Graph API (fake-whatsapp.ts) that checks the access
// token, takes the replies and plays Meta's side of the webhook: the verification handshake and signed
// notifications.

let platform: PlatformForGateway;
let demo: Awaited<ReturnType<PlatformForGateway['seedDemo']>>;
let fake: FakeWhatsApp;
let g: TestGateway;
const logs = capturedLogger();
/** every answer the gateway gave in these tests, to look for secrets in */
const answers: string[] = [];

beforeAll(async () => {
  platform = await startPlatformForGateway();
  demo = await platform.seedDemo();
  fake = await FakeWhatsApp.start();
  g = await startTestGateway({
    redis: 'none',
    logger: logs.logger,
    env: {
      AI_WORKERS_ENABLED: 'true',
      PLATFORM_BRIDGE_ENABLED: 'true',
      PLATFORM_BASE_URL: platform.baseUrl,
      WHATSAPP_API_BASE_URL: fake.baseUrl,
      CHAT_RATE_LIMIT_PER_MIN: '10000',
    },
  });
});
afterAll(async () => {
  await g?.close();
  await fake?.close();
  await platform?.close();
});

const verifyTokenOf = (number: FakeNumber) => `verify-${number.phoneNumberId}-Zq81`;
const webhookUrl = (channelId: string) => `${g.baseUrl}/api/channels/whatsapp/${channelId}/webhook`;
/** a UK mobile number as a WhatsApp id, different in every test so that chat sessions never meet */
const newWaId = () => `447700${String(randomInt(100_000, 999_999))}`;

function connectBody(number: FakeNumber, overrides: Record<string, string> = {}) {
  return {
    type: 'whatsapp',
    accessToken: number.accessToken,
    phoneNumberId: number.phoneNumberId,
    appSecret: number.appSecret,
    verifyToken: verifyTokenOf(number),
    ...overrides,
  };
}

async function record(res: Response): Promise<Response> {
  answers.push(await res.clone().text());
  return res;
}

async function connect(worker: ChannelWorker, number: FakeNumber): Promise<ChannelCreated> {
  const res = await record(await worker.call('POST', '/channels', connectBody(number)));
  expect(res.status, await res.clone().text()).toBe(201);
  return expectContract(ChannelCreated, await res.json());
}

/** A connected number whose callback URL was saved in the Meta app (the verification handshake passed). */
async function subscribed(worker: ChannelWorker): Promise<{ number: FakeNumber; channel: ChannelCreated }> {
  const number = fake.addNumber();
  const channel = await connect(worker, number);
  const handshake = await fake.subscribe(number, {
    url: webhookUrl(channel.id),
    verifyToken: verifyTokenOf(number),
  });
  expect(handshake.status).toBe(200);
  return { number, channel };
}

/** `waId` sends the pairing code alone and gets "Connected to Property Manager". */
async function pair(number: FakeNumber, waId: string, code: string, name = 'Priya Landlord') {
  const before = fake.messagesTo(waId).length;
  expect((await fake.userWrites(number, { waId, name }, code)).status).toBe(200);
  const sent = await fake.waitForMessages(waId, before + 1);
  expect(sent[before]!.body).toMatch(/^Connected to Property Manager\./);
}

async function channelsOf(worker: ChannelWorker) {
  const res = await record(await worker.call('GET', '/channels'));
  expect(res.status).toBe(200);
  return expectContract(ChannelsResponse, await res.json()).channels;
}

async function sessionTurns(waId: string) {
  const session = await g.db.chatSession.findFirst({
    where: { channel: 'whatsapp', owner: '', externalId: { endsWith: `:${waId}` } },
    include: { turns: { orderBy: { seq: 'asc' } } },
  });
  return session?.turns ?? [];
}

describe('POST /api/assistant/workers/{workerId}/channels (whatsapp)', () => {
  it('checks the credentials with GET /{phoneNumberId} and answers 201 with the pairing code, no link and no secret', async () => {
    const worker = await channelWorker(g);
    const number = fake.addNumber();
    const created = await connect(worker, number);
    expect(created).toMatchObject({
      workerId: worker.workerId,
      type: 'whatsapp',
      mode: 'webhook',
      botUsername: null,
      status: 'pending_pairing',
      chat: null,
      pairingLink: null,
    });
    const check = fake.calls.find((c) => c.path === `/v21.0/${number.phoneNumberId}`)!;
    expect(check).toMatchObject({ method: 'GET', token: number.accessToken });

    const row = await g.db.channel.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.externalId).toBe(number.phoneNumberId);
    const sealed = Buffer.from(row.secretsCiphertext).toString('latin1');
    for (const secret of [number.accessToken, number.appSecret, verifyTokenOf(number)])
      expect(sealed).not.toContain(secret);
    // the verify token is kept as its hash only
    expect(Buffer.from(row.webhookSecretHash!)).toEqual(Buffer.from(sha256(verifyTokenOf(number))));
  });

  it('answers 422 channel-token-rejected when the Graph API refuses the token (401, code 190), and stores nothing', async () => {
    const worker = await channelWorker(g);
    const number = fake.addNumber();
    const res = await record(
      await worker.call('POST', '/channels', connectBody(number, { accessToken: `EAAG${'x'.repeat(60)}` })),
    );
    const problem = await expectProblem(res, 422, 'channel-token-rejected');
    expect(problem.detail).toMatch(/access token/);
    expect(await g.db.channel.count({ where: { workerId: worker.workerId } })).toBe(0);
  });

  it('answers 422 channel-token-rejected when the token cannot use the phone number id (400, code 100)', async () => {
    const worker = await channelWorker(g);
    const mine = fake.addNumber();
    const other = fake.addNumber();
    const res = await record(
      await worker.call('POST', '/channels', connectBody(mine, { phoneNumberId: other.phoneNumberId })),
    );
    const problem = await expectProblem(res, 422, 'channel-token-rejected');
    expect(problem.detail).toContain(other.phoneNumberId);
    expect(await g.db.channel.count({ where: { workerId: worker.workerId } })).toBe(0);
  });

  it('answers 502 channel-unreachable when the Graph API is down or failing, and stores nothing', async () => {
    const worker = await channelWorker(g);
    const number = fake.addNumber();
    fake.down();
    try {
      await expectProblem(
        await record(await worker.call('POST', '/channels', connectBody(number))),
        502,
        'channel-unreachable',
      );
    } finally {
      fake.up();
    }
    fake.failNext('number', 500, 1, 'An unknown error occurred');
    await expectProblem(
      await record(await worker.call('POST', '/channels', connectBody(number))),
      502,
      'channel-unreachable',
    );
    expect(await g.db.channel.count({ where: { workerId: worker.workerId } })).toBe(0);
  });

  it('answers 409 channel-already-connected for a number connected to another worker, which keeps it', async () => {
    const first = await channelWorker(g);
    const second = await channelWorker(g);
    const number = fake.addNumber();
    const kept = await connect(first, number);
    await expectProblem(
      await record(await second.call('POST', '/channels', connectBody(number))),
      409,
      'channel-already-connected',
    );
    expect((await channelsOf(first)).map((c) => c.id)).toEqual([kept.id]);
    expect(await channelsOf(second)).toEqual([]);
  });
});

describe('GET /api/channels/whatsapp/{channelId}/webhook (Meta’s verification)', () => {
  it('answers hub.challenge as text/plain when hub.verify_token matches', async () => {
    const worker = await channelWorker(g);
    const number = fake.addNumber();
    const channel = await connect(worker, number);
    const handshake = await fake.subscribe(number, {
      url: webhookUrl(channel.id),
      verifyToken: verifyTokenOf(number),
    });
    expect(handshake.status).toBe(200);
    expect(handshake.contentType).toMatch(/^text\/plain/);
    expect(fake.webhookOf(number)).not.toBeNull();
  });

  it('answers 403 webhook-secret-invalid for a wrong or missing verify token or another hub.mode, and 404 for no channel', async () => {
    const worker = await channelWorker(g);
    const number = fake.addNumber();
    const channel = await connect(worker, number);
    const wrong = await fake.subscribe(number, { url: webhookUrl(channel.id), verifyToken: 'not-the-token' });
    expect(wrong.status).toBe(403);
    expect(JSON.parse(wrong.body)).toMatchObject({ code: 'webhook-secret-invalid' });
    expect(fake.webhookOf(number)).toBeNull();

    const query = (q: Record<string, string>) =>
      fetch(`${webhookUrl(channel.id)}?${new URLSearchParams(q)}`).then(record);
    await expectProblem(
      await query({ 'hub.mode': 'subscribe', 'hub.challenge': '42' }),
      403,
      'webhook-secret-invalid',
    );
    await expectProblem(
      await query({
        'hub.mode': 'unsubscribe',
        'hub.verify_token': verifyTokenOf(number),
        'hub.challenge': '42',
      }),
      403,
      'webhook-secret-invalid',
    );
    const right = {
      'hub.mode': 'subscribe',
      'hub.verify_token': verifyTokenOf(number),
      'hub.challenge': '42',
    };
    const elsewhere = `${webhookUrl('00000000-0000-4000-8000-000000000000')}?${new URLSearchParams(right)}`;
    await expectProblem(await fetch(elsewhere).then(record), 404, 'channel-not-found');
    const ok = await query(right);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('42');
  });
});

describe('POST /api/channels/whatsapp/{channelId}/webhook', () => {
  it('answers 401 webhook-signature-invalid for a missing, wrong or foreign signature, and handles nothing', async () => {
    const worker = await channelWorker(g);
    const { number, channel } = await subscribed(worker);
    const waId = newWaId();
    // a non-ASCII name: Meta's bytes (\u00eb) differ from JSON.stringify's
    const notification = fake.textNotification(number, { waId, name: 'Zoë' }, channel.pairingCode);
    const raw = metaJson(notification);
    const attempts = [
      await fake.post(webhookUrl(channel.id), raw, null, number.appSecret),
      await fake.post(webhookUrl(channel.id), raw, 'sha256=' + '0'.repeat(64), number.appSecret),
      await fake.post(webhookUrl(channel.id), raw, signatureOf(raw, number.appSecret).slice(0, 40), ''),
      await fake.post(webhookUrl(channel.id), raw, undefined, 'another-apps-secret'),
      // the right signature, of other bytes than those sent
      await fake.post(
        webhookUrl(channel.id),
        raw,
        signatureOf(JSON.stringify(notification), number.appSecret),
        '',
      ),
    ];
    for (const a of attempts) {
      answers.push(a.body);
      expect(a.status).toBe(401);
      expect(JSON.parse(a.body)).toMatchObject({ code: 'webhook-signature-invalid' });
    }
    // the same code, signed: the first message handled at all pairs the number
    await pair(number, waId, channel.pairingCode);
    expect(fake.messagesTo(waId)).toHaveLength(1);
    expect(await g.db.channelUpdate.count({ where: { channelId: channel.id } })).toBe(1);
  });

  it('pairs the first number that sends the code alone: "Connected to Property Manager", then connected with its name', async () => {
    const worker = await channelWorker(g);
    const { number, channel } = await subscribed(worker);
    const waId = newWaId();
    await pair(number, waId, ` ${channel.pairingCode.toLowerCase()} `, 'Priya Landlord');
    const [listed] = await channelsOf(worker);
    expect(listed).toMatchObject({
      id: channel.id,
      status: 'connected',
      chat: { id: waId, title: 'Priya Landlord' },
      pairingExpiresAt: null,
    });
    expect(listed!.connectedAt).not.toBeNull();
    // the reply went to the sender through the channel's number, with its token
    const reply = fake.messagesTo(waId)[0]!;
    expect(reply.phoneNumberId).toBe(number.phoneNumberId);
    const call = fake.calls.find((c) => c.path === `/v21.0/${number.phoneNumberId}/messages`)!;
    expect(call.token).toBe(number.accessToken);
    expect(call.body).toMatchObject({ messaging_product: 'whatsapp', to: waId, type: 'text' });
  });

  it('answers a wrong code with a short refusal and pairs nothing; a second number is refused once and gets no turn', async () => {
    const worker = await channelWorker(g);
    const { number, channel } = await subscribed(worker);
    const stranger = newWaId();
    await fake.userWrites(number, { waId: stranger }, 'ABCDEFGH');
    const [refusal] = await fake.waitForMessages(stranger, 1);
    expect(refusal!.body).toMatch(/not valid or has expired/);
    expect((await channelsOf(worker))[0]).toMatchObject({ status: 'pending_pairing', chat: null });

    const owner = newWaId();
    await pair(number, owner, channel.pairingCode);
    const second = newWaId();
    await fake.userWrites(number, { waId: second }, 'which gas safety certificates have expired?');
    await fake.userWrites(number, { waId: second }, 'hello?');
    await fake.userWrites(number, { waId: second }, channel.pairingCode);
    await fake.userWrites(number, { waId: owner }, 'what did I say?');
    await fake.waitForMessages(owner, 2);
    // 7 updates: the stranger's, the owner's two, the second number's three and its one refusal marker; the
    // second number's are handled one after another, so its refusal was sent before its last was recorded
    await until('the second number’s messages to be handled', async () =>
      (await g.db.channelUpdate.count({ where: { channelId: channel.id } })) === 7 ? true : undefined,
    );
    expect(fake.messagesTo(second).map((m) => m.body)).toEqual(['This bot is connected to someone else.']);
    expect(await sessionTurns(second)).toEqual([]);
    expect((await sessionTurns(stranger)).length).toBe(0);
    expect((await channelsOf(worker))[0]!.chat).toMatchObject({ id: owner });
  });

  it('turns a paired number’s text into a chat turn answered with POST /{phoneNumberId}/messages: the web chat’s answer', async () => {
    const bound: BoundWorker = await bindWorker(g, { slug: demo.tenant.slug, key: demo.key });
    const worker = await channelWorker(g, bound);
    const { number, channel } = await subscribed(worker);
    const waId = newWaId();
    await pair(number, waId, channel.pairingCode);

    const question = 'which gas safety certificates have expired?';
    const asked = await fake.userWrites(number, { waId }, question);
    const [, answer] = await fake.waitForMessages(waId, 2);
    // "typing…" (and read) for the question while it was answered; not for the pairing message
    const typing = fake.typing.filter((t) => t.phoneNumberId === number.phoneNumberId);
    expect(typing.map((t) => t.messageId)).toEqual([asked.messageId]);
    expect(typing[0]!.at).toBeLessThanOrEqual(answer!.at);
    const web = await bound.chat(question);
    expect(web.reply).toMatch(/gas safety/i);
    expect(answer!.body).toBe(formatForWhatsApp(web.reply).join('\n'));
    // WhatsApp's own bold, not Markdown's
    expect(answer!.body).not.toContain('**');

    const turns = await sessionTurns(waId);
    expect(turns.map((t) => [t.role, t.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'complete'],
    ]);
    expect(turns[0]!.content).toBe(question);
    // the worker's platform tools answered it
    expect(turns[1]!.toolCalls).not.toBeNull();
  });

  it('checks the raw bytes: text with non-ASCII characters and a slash, escaped as Meta escapes them, is handled', async () => {
    const worker = await channelWorker(g);
    const { number, channel } = await subscribed(worker);
    const waId = newWaId();
    await pair(number, waId, channel.pairingCode);
    const sent = await fake.userWrites(
      number,
      { waId, name: 'Zoë' },
      'my name is Zoë — see https://example.org/a',
    );
    expect(metaJson(sent.notification)).toContain('Zo\\u00eb \\u2014 see https:\\/\\/example.org\\/a');
    await fake.userWrites(number, { waId }, 'what is my name?');
    const replies = await fake.waitForMessages(waId, 3);
    expect(replies[2]!.body).toBe('Your name is *Zoë*.');
  });

  it('handles a message id delivered again (Meta’s retry) once', async () => {
    const worker = await channelWorker(g);
    const { number, channel } = await subscribed(worker);
    const waId = newWaId();
    await pair(number, waId, channel.pairingCode);
    const first = await fake.userWrites(number, { waId }, 'my name is Ada');
    // again, at once and after a while, as Meta retries
    const again = await Promise.all([
      fake.deliver(number, first.notification),
      fake.deliver(number, first.notification),
    ]);
    expect(again).toEqual([200, 200]);
    await fake.waitForMessages(waId, 2);
    expect(await fake.deliver(number, first.notification)).toBe(200);
    await fake.userWrites(number, { waId }, 'what did I say?');
    const replies = await fake.waitForMessages(waId, 3);
    expect(replies.map((m) => m.body)).toEqual([
      expect.stringMatching(/^Connected to/),
      "Nice to meet you, *Ada*. I'll remember that for this conversation.",
      'You said: "my name is Ada"',
    ]);
    const keys = await g.db.channelUpdate.findMany({
      where: { channelId: channel.id, updateKey: first.messageId },
    });
    expect(keys).toHaveLength(1);
    expect((await sessionTurns(waId)).filter((t) => t.role === 'user').map((t) => t.content)).toEqual([
      'my name is Ada',
      'what did I say?',
    ]);
  });

  it('takes in statuses, reactions, images and other numbers’ messages (200) and ignores them', async () => {
    const worker = await channelWorker(g);
    const { number, channel } = await subscribed(worker);
    const waId = newWaId();
    await pair(number, waId, channel.pairingCode);
    const other = fake.addNumber();
    const ignored = [
      fake.notification(number, {
        statuses: [
          {
            id: fake.messagesTo(waId)[0]!.messageId,
            status: 'delivered',
            timestamp: '1',
            recipient_id: waId,
          },
        ],
      }),
      fake.notification(number, {
        contacts: [{ profile: { name: 'Sam' }, wa_id: waId }],
        messages: [
          { from: waId, id: 'wamid.reaction1', timestamp: '1', type: 'reaction', reaction: { emoji: '👍' } },
          {
            from: waId,
            id: 'wamid.image1',
            timestamp: '1',
            type: 'image',
            image: { id: '123', mime_type: 'image/jpeg' },
          },
        ],
      }),
      // another number of the same Meta app, posted to this channel's URL
      fake.textNotification(other, { waId }, 'what did I say?'),
    ];
    for (const n of ignored) expect(await fake.deliver(number, n)).toBe(200);
    await fake.userWrites(number, { waId }, 'what did I say?');
    const replies = await fake.waitForMessages(waId, 2);
    // the pairing code is not a chat turn, and the ignored notifications made none
    expect(replies[1]!.body).toBe('This is the first thing you have said in this conversation.');
    expect(await g.db.channelUpdate.count({ where: { channelId: channel.id } })).toBe(2);
  });

  it('splits a long reply at 4000 characters on line boundaries and sends the parts in order', async () => {
    const worker = await channelWorker(g);
    const { number, channel } = await subscribed(worker);
    const waId = newWaId();
    await pair(number, waId, channel.pairingCode);
    const lines = Array.from(
      { length: 150 },
      (_, i) => `note ${String(i + 1).padStart(3, '0')}: the boiler at flat ${i + 1} was serviced`,
    );
    await fake.userWrites(number, { waId }, lines.join('\n'));
    await fake.waitForMessages(waId, 2);
    await fake.userWrites(number, { waId }, 'what did I say?');
    const replies = await until('the long reply', () => {
      const got = fake.messagesTo(waId);
      return got.length >= 4 ? got : undefined;
    });
    const parts = replies.slice(2).map((m) => m.body);
    expect(parts.length).toBe(2);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(4000);
    expect(parts.join('\n')).toBe(`You said: "${lines.join('\n')}"`);
    // cut between lines, not inside one
    expect(parts[1]).toMatch(/^note \d{3}: /);
  });

  it('understands /help and /clear from the paired number, and answers 404 once the channel is deleted', async () => {
    const worker = await channelWorker(g);
    const { number, channel } = await subscribed(worker);
    const waId = newWaId();
    await pair(number, waId, channel.pairingCode);
    await fake.userWrites(number, { waId }, 'my name is Ada');
    await fake.userWrites(number, { waId }, '/help');
    await fake.userWrites(number, { waId }, '/clear');
    await fake.userWrites(number, { waId }, 'what is my name?');
    const replies = (await fake.waitForMessages(waId, 5)).map((m) => m.body);
    expect(replies[2]).toContain('/clear');
    expect(replies[3]).toMatch(/^Cleared/);
    expect(replies[4]).toBe("You haven't told me your name yet.");

    expect((await worker.call('DELETE', `/channels/${channel.id}`)).status).toBe(204);
    const after = await fake.post(
      webhookUrl(channel.id),
      metaJson(fake.textNotification(number, { waId }, 'hello?')),
      undefined,
      number.appSecret,
    );
    expect(after.status).toBe(404);
    expect(JSON.parse(after.body)).toMatchObject({ code: 'channel-not-found' });
  });

  it('records a reply the Graph API refuses as the channel’s lastError, without the token', async () => {
    const worker = await channelWorker(g);
    const { number, channel } = await subscribed(worker);
    const waId = newWaId();
    await pair(number, waId, channel.pairingCode);
    // twice: the typing indicator (same path, not recorded: it is cosmetic), then the reply
    fake.failNext('messages', 401, 190, 'Error validating access token: Session has expired', 2);
    await fake.userWrites(number, { waId }, 'hello');
    const listed = await until('the delivery failure to be recorded', async () => {
      const [c] = await channelsOf(worker);
      return c?.lastError ? c : undefined;
    });
    expect(listed.lastError).toMatch(/could not be delivered.*401.*190/);
    expect(listed.lastError).not.toContain(number.accessToken);
  });
});

describe('secrets', () => {
  it('never puts the access token, app secret or verify token in an answer or a log line', async () => {
    const worker = await channelWorker(g);
    const { number } = await subscribed(worker);
    await channelsOf(worker);
    const everything = `${answers.join('\n')}\n${logs.text()}`;
    expect(logs.text()).toContain('channel connected');
    expect(everything).not.toContain(number.accessToken);
    expect(everything).not.toContain(number.appSecret);
    expect(everything).not.toContain(verifyTokenOf(number));
    // nor any token another test sent (the refused and the expired ones included)
    for (const call of fake.calls) if (call.token) expect(everything).not.toContain(call.token);
  });
});
