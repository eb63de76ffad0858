// The check both servers of the gateway benchmark must pass before they are measured: the same reply JSON for
// POST /api/chat, and the same event stream for GET /api/chat/stream (same SSE headers, event ids, chunk JSON
// shape and count, content). Throws when they differ.
import http from 'node:http';
import { postJson, readStream } from './load.ts';

interface SseEvent {
  id?: string;
  data?: string;
}

function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((block) => {
      const e: SseEvent = {};
      for (const line of block.split('\n')) {
        if (line.startsWith('id: ')) e.id = line.slice(4);
        else if (line.startsWith('data: ')) e.data = line.slice(6);
      }
      return e;
    })
    .filter((e) => e.data !== undefined);
}

/** The JSON's structure with every leaf replaced by its type. */
function shape(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(shape);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shape(x)]));
  return v === null ? null : typeof v;
}

function contentOf(events: SseEvent[]): string {
  return events
    .filter((e) => e.data !== '[DONE]')
    .map((e) => (JSON.parse(e.data!) as { choices?: { delta?: { content?: string } }[] }).choices?.[0])
    .map((c) => c?.delta?.content ?? '')
    .join('');
}

const SSE_HEADERS = ['content-type', 'cache-control', 'x-accel-buffering', 'connection', 'transfer-encoding'];

/** Both servers must answer the same reply JSON and the same event stream; throws when they do not. */
export async function checkSameOutput(
  gateway: { url(path: string): string },
  baseline: { url(path: string): string },
  message: string,
  runId: string,
) {
  const body = { message, sessionId: `bench-check-${runId}` };
  const [g, b] = await Promise.all([
    postJson(gateway.url('/api/chat'), body),
    postJson(baseline.url('/api/chat'), body),
  ]);
  if (g.status !== 200 || b.status !== 200)
    throw new Error(`POST /api/chat answered ${g.status} / ${b.status}: ${g.body} / ${b.body}`);
  if (g.body !== b.body) throw new Error(`the replies differ:\n${g.body}\n${b.body}`);

  const url = (s: { url(path: string): string }) =>
    s.url(`/api/chat/stream?message=${encodeURIComponent(message)}&sessionId=bench-check-stream-${runId}`);
  const agent = new http.Agent({ keepAlive: false });
  const [gs, bs] = await Promise.all([
    readStream(url(gateway), agent, { keepBody: true }),
    readStream(url(baseline), agent, { keepBody: true }),
  ]);
  agent.destroy();
  if (gs.status !== 200 || bs.status !== 200)
    throw new Error(`GET /api/chat/stream answered ${gs.status} / ${bs.status}: ${gs.body} / ${bs.body}`);
  for (const h of SSE_HEADERS) {
    if (gs.headers[h] !== bs.headers[h])
      throw new Error(`stream header ${h} differs: ${gs.headers[h]} / ${bs.headers[h]}`);
  }
  const ge = parseSse(gs.body!);
  const be = parseSse(bs.body!);
  if (ge.length !== be.length) throw new Error(`event counts differ: ${ge.length} / ${be.length}`);
  ge.forEach((e, i) => {
    const other = be[i]!;
    if (e.id !== other.id) throw new Error(`event ${i}: ids differ (${e.id} / ${other.id})`);
    if (e.data === '[DONE]' || other.data === '[DONE]') {
      if (e.data !== other.data) throw new Error(`event ${i}: ${e.data} / ${other.data}`);
      return;
    }
    const a = JSON.stringify(shape(JSON.parse(e.data!)));
    const c = JSON.stringify(shape(JSON.parse(other.data!)));
    if (a !== c) throw new Error(`event ${i}: chunk shapes differ:\n${e.data}\n${other.data}`);
  });
  if (contentOf(ge) !== contentOf(be)) throw new Error('the streamed replies differ');
  const reply = (JSON.parse(g.body) as { reply: string }).reply;
  if (contentOf(ge) !== reply) throw new Error('the streamed reply differs from the JSON reply');
  return {
    reply,
    replyJsonBytes: Buffer.byteLength(g.body),
    streamEvents: ge.length,
    streamBytes: Buffer.byteLength(gs.body!),
    baselineStreamBytes: Buffer.byteLength(bs.body!),
  };
}
