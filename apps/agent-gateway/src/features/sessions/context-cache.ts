// A session's context (its latest CONTEXT_TURNS turns) kept in this process between turns, so that a turn does not
// read back, decode and parse the turns this process has just written. The database stays the only truth: the
// statement that begins a turn compares the window's turn numbers (`turns.seq`) with the ones cached here and sends
// the turns only when they differ — another instance wrote to the session, the session was cleared or swept, an
// entry was evicted. A stored turn's role and content never change (the open-turn sweeper changes only a user
// turn's status, from complete to interrupted, both of which stay in the context), so the same numbers mean the
// same turns.

export interface ContextTurn {
  role: 'user' | 'assistant';
  content: string;
}

interface Entry {
  /** the session's key (channel, owner, external id), by which a turn's start finds the entry */
  key: string;
  /** the window's turn numbers, oldest first, joined by commas: what the statement compares */
  fingerprint: string;
  seqs: string[];
  turns: ContextTurn[];
  chars: number;
}

/** Sessions kept, and their turns' characters in all: bounds the cache's memory to some tens of megabytes. */
export const CONTEXT_CACHE_SESSIONS = 2_000;
export const CONTEXT_CACHE_CHARS = 8_000_000;

const sizeOf = (turns: ContextTurn[]) => turns.reduce((n, t) => n + t.content.length, 0);
// seqs are bigint counters sent as decimal text: longer is larger, equal lengths compare as text
const after = (a: string, b: string) => a.length > b.length || (a.length === b.length && a > b);

export function createContextCache(opts: { window: number; maxSessions?: number; maxChars?: number }) {
  const maxSessions = opts.maxSessions ?? CONTEXT_CACHE_SESSIONS;
  const maxChars = opts.maxChars ?? CONTEXT_CACHE_CHARS;
  // a Map iterates in insertion order: the first entry is the least recently used
  const entries = new Map<string, Entry>();
  const byKey = new Map<string, string>();
  let chars = 0;

  const remove = (sessionId: string) => {
    const entry = entries.get(sessionId);
    if (!entry) return;
    entries.delete(sessionId);
    if (byKey.get(entry.key) === sessionId) byKey.delete(entry.key);
    chars -= entry.chars;
  };

  const put = (key: string, sessionId: string, seqs: string[], turns: ContextTurn[]) => {
    remove(sessionId);
    const previous = byKey.get(key); // the key's session was swept and made anew
    if (previous !== undefined) remove(previous);
    const entry: Entry = { key, fingerprint: seqs.join(','), seqs, turns, chars: sizeOf(turns) };
    if (entry.chars > maxChars) return;
    entries.set(sessionId, entry);
    byKey.set(key, sessionId);
    chars += entry.chars;
    for (const [id] of entries) {
      if (entries.size <= maxSessions && chars <= maxChars) break;
      remove(id);
    }
  };

  return {
    /**
     * What the cache holds of the session with this key: its fingerprint, for the database to compare, and its turns,
     * which are the context when the database finds the fingerprint current. Taken together before the statement is
     * sent, so that an entry changed or evicted meanwhile cannot answer for another window. Marks the entry recently
     * used. (Turn numbers are unique across sessions, so a fingerprint can only match the turns it was made of.)
     */
    lookup(key: string): { fingerprint: string; turns: readonly ContextTurn[] } | undefined {
      const sessionId = byKey.get(key);
      const entry = sessionId === undefined ? undefined : entries.get(sessionId);
      if (!entry) return undefined;
      entries.delete(sessionId!);
      entries.set(sessionId!, entry);
      return { fingerprint: entry.fingerprint, turns: entry.turns };
    },

    /** The window as the database sent it. */
    set: (key: string, sessionId: string, seqs: string[], turns: ContextTurn[]) =>
      put(key, sessionId, seqs, turns),

    /**
     * A turn this process stored in the session: it joins the cached window when it is the newest turn there.
     * Otherwise (turns of one session stored out of order by concurrent requests) the entry is dropped, and the
     * next turn reads the window from the database.
     */
    append(sessionId: string, seq: string, turn: ContextTurn): void {
      const entry = entries.get(sessionId);
      if (!entry) return;
      const last = entry.seqs[entry.seqs.length - 1];
      if (last !== undefined && !after(seq, last)) return remove(sessionId);
      const keep = Math.max(0, entry.seqs.length + 1 - opts.window);
      put(entry.key, sessionId, [...entry.seqs.slice(keep), seq], [...entry.turns.slice(keep), turn]);
    },

    forget: remove,

    /** for tests and the bench */
    stats: () => ({ sessions: entries.size, chars }),
  };
}
export type ContextCache = ReturnType<typeof createContextCache>;
