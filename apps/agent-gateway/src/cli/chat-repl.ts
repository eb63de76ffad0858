import { createInterface } from 'node:readline';
import { isClosedPipe } from '@pa/http-kit/closed-pipe';
import type { ChatService } from '../features/chat/chat-service.ts';
import type { ProviderRegistry } from '../features/providers/provider-registry.ts';
import {
  OPERATOR_OWNER,
  type SessionRepository,
  type StoredTurn,
} from '../features/sessions/session-repository.ts';

const HELP = `Commands:
  /help             this list
  /provider [name]  show the providers, or switch this session to one
  /clear            forget this session's turns
  /recall [n]       show the last n stored turns of this session (default 10)
  /exit             leave (Ctrl-D works too; Ctrl-C stops a reply)`;

export function formatTurns(turns: StoredTurn[]): string {
  if (turns.length === 0) return '(no stored turns)';
  return turns
    .map((t) => {
      const flag = t.status === 'complete' ? '' : ` [${t.status}]`;
      return `${t.createdAt.toISOString()} ${t.role}${flag}: ${t.content}`;
    })
    .join('\n');
}

// The terminal chat: one line in, one reply out, on the `cli` channel's own sessions. Replies stream as plain
// text; with `render` (a terminal) each is shown once complete, as rendered markdown; with `json` every reply,
// error and /command answer is one JSON object on a line of its own, and nothing else is printed.
export async function runChatRepl(deps: {
  chat: ChatService;
  sessions: SessionRepository;
  providers: ProviderRegistry;
  externalId: string;
  provider?: string | undefined;
  workerId?: string | undefined;
  workspaceId?: string | undefined;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** one JSON object per reply (and per /command's answer) instead of text */
  json?: boolean | undefined;
  /** a person types the lines: a `> ` prompt before each (never with `json`) */
  interactive?: boolean | undefined;
  /** renders a complete reply's markdown for the terminal; without it replies stream as they come */
  render?: ((markdown: string) => string) | undefined;
}): Promise<void> {
  const { chat, sessions, providers, externalId, output } = deps;
  const json = deps.json === true;
  const prompt = deps.interactive === true && !json ? '> ' : '';
  // the CLI acts as the operator: its sessions belong to no workspace
  const key = { channel: 'cli' as const, owner: OPERATOR_OWNER, externalId };
  const write = (s: string) => output.write(s);
  const emit = (o: Record<string, unknown>) => write(`${JSON.stringify({ session: externalId, ...o })}\n`);
  /** a /command's answer, as a line of text or a JSON object */
  const say = (command: string, text: string) => (json ? emit({ command, text }) : write(`${text}\n`));
  let provider = deps.provider;
  if (provider) providers.get(provider);

  const banner = `Chat session ${externalId} (provider ${provider ?? (await chat.activeProvider(key))}).`;

  // Lines are queued and handled one at a time, so a reply finishes before the next line is handled, whether a
  // person types them or they arrive all at once through a pipe. The listener is attached before any await so
  // that no piped line is missed.
  const rl = createInterface({ input: deps.input, terminal: false });
  let current: AbortController | null = null;
  let done = false;
  process.on('SIGINT', () => {
    if (current) current.abort();
    else rl.close();
  });
  // The reader of our output went away (`chat | head -n 3`): stop the reply and read no further line.
  output.on('error', (err) => {
    if (!isClosedPipe(err)) return;
    done = true;
    current?.abort();
    rl.close();
  });

  const handle = async (raw: string): Promise<void> => {
    const line = raw.trim();
    if (!line) return;
    if (line.startsWith('/')) {
      const [command, arg] = line.split(/\s+/, 2);
      if (command === '/exit' || command === '/quit') {
        done = true;
        return;
      }
      if (command === '/help') say(command, HELP);
      else if (command === '/provider') {
        if (!arg) {
          const active = provider ?? (await chat.activeProvider(key));
          say(command, `providers: ${providers.names().join(', ')}; active: ${active}`);
        } else if (!providers.has(arg)) {
          say(command, `unknown provider "${arg}"; choose one of ${providers.names().join(', ')}`);
        } else {
          provider = arg;
          say(command, `provider set to ${arg}`);
        }
      } else if (command === '/clear') {
        say(command, `cleared ${await chat.clear(key)} turns`);
      } else if (command === '/recall') {
        const n = arg ? Number(arg) : 10;
        if (!Number.isInteger(n) || n < 1 || n > 500) say(command, 'usage: /recall [n], n from 1 to 500');
        else {
          const session = await sessions.find(key);
          say(command, formatTurns(session ? await sessions.history(session.id, n) : []));
        }
      } else say(command ?? line, `unknown command ${command}; type /help`);
      return;
    }
    if (line.length > 8000) {
      if (json) emit({ error: { code: 'message-too-long', message: 'at most 8000 characters' } });
      else write('message too long (at most 8000 characters)\n');
      return;
    }
    current = new AbortController();
    // streamed as it comes, unless it is shown whole (rendered, or as JSON)
    const streaming = !json && !deps.render;
    try {
      const turn = await chat.prepare({
        ...key,
        provider,
        message: line,
        workerId: deps.workerId,
        workspaceId: deps.workspaceId,
      });
      const result = await chat.run(turn, current, streaming ? write : () => undefined);
      const stopped = result.status === 'interrupted';
      if (json) emit({ provider: turn.provider.name, status: result.status, reply: result.reply });
      else if (deps.render) write(`${deps.render(result.reply)}${stopped ? ' [stopped]' : ''}\n`);
      else write(stopped ? ' [stopped]\n' : '\n');
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const code = (err as { code?: unknown }).code;
      if (json) emit({ error: { code: typeof code === 'string' ? code : 'failed', message } });
      else write(`${streaming ? '\n' : ''}error: ${message}\n`);
    } finally {
      current = null;
    }
  };

  let queue = Promise.resolve();
  rl.on('line', (raw) => {
    queue = queue.then(async () => {
      if (done) return;
      await handle(raw);
      if (done) rl.close();
      else write(prompt);
    });
  });
  const closed = new Promise<void>((resolve) => rl.once('close', () => resolve()));
  // the banner is for a person; --json output stays JSON objects only
  if (!json) write(`${banner} Type /help.\n${prompt}`);
  await closed;
  await queue;
  if (prompt) write('\n');
}
