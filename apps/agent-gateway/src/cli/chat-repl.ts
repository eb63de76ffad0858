import { createInterface } from 'node:readline';
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

// The terminal chat: one line in, one streamed reply out, on the `cli` channel's own sessions.
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
}): Promise<void> {
  const { chat, sessions, providers, externalId, output } = deps;
  // the CLI acts as the operator: its sessions belong to no workspace
  const key = { channel: 'cli' as const, owner: OPERATOR_OWNER, externalId };
  const write = (s: string) => output.write(s);
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

  const handle = async (raw: string): Promise<void> => {
    const line = raw.trim();
    if (!line) return;
    if (line.startsWith('/')) {
      const [command, arg] = line.split(/\s+/, 2);
      if (command === '/exit' || command === '/quit') {
        done = true;
        return;
      }
      if (command === '/help') write(`${HELP}\n`);
      else if (command === '/provider') {
        if (!arg) {
          const active = provider ?? (await chat.activeProvider(key));
          write(`providers: ${providers.names().join(', ')}; active: ${active}\n`);
        } else if (!providers.has(arg)) {
          write(`unknown provider "${arg}"; choose one of ${providers.names().join(', ')}\n`);
        } else {
          provider = arg;
          write(`provider set to ${arg}\n`);
        }
      } else if (command === '/clear') {
        write(`cleared ${await chat.clear(key)} turns\n`);
      } else if (command === '/recall') {
        const n = arg ? Number(arg) : 10;
        if (!Number.isInteger(n) || n < 1 || n > 500) write('usage: /recall [n], n from 1 to 500\n');
        else {
          const session = await sessions.find(key);
          write(`${formatTurns(session ? await sessions.history(session.id, n) : [])}\n`);
        }
      } else write(`unknown command ${command}; type /help\n`);
      return;
    }
    if (line.length > 8000) {
      write('message too long (at most 8000 characters)\n');
      return;
    }
    current = new AbortController();
    try {
      const turn = await chat.prepare({
        ...key,
        provider,
        message: line,
        workerId: deps.workerId,
        workspaceId: deps.workspaceId,
      });
      const result = await chat.run(turn, current, write);
      write(result.status === 'interrupted' ? ' [stopped]\n' : '\n');
    } catch (err) {
      write(`\nerror: ${err instanceof Error ? err.message : String(err)}\n`);
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
      else write('> ');
    });
  });
  const closed = new Promise<void>((resolve) => rl.once('close', () => resolve()));
  write(`${banner} Type /help.\n> `);
  await closed;
  await queue;
  write('\n');
}
