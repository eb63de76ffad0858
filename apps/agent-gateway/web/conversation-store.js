// The browser's own record of its conversations: the current one (`agentSessionId`, as before) and the ids of
// all it has had (`agentSessions`, most recent first, at most 50). The history list comes from the server (the
// device's own conversations, whichever browser it used); these ids are a cache that keeps the conversations this
// browser had before the server recorded devices in the list. When storage is disabled both live only as long
// as the page.

const CURRENT_KEY = 'agentSessionId';
const LIST_KEY = 'agentSessions';
export const MAX_CONVERSATIONS = 50;
const ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** @type {{ current: string | null, ids: string[] }} */
const memory = { current: null, ids: [] };

/** @param {string} key */
function read(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/**
 * @param {string} key
 * @param {string | null} value
 */
function write(key, value) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    // storage disabled: kept in memory only
  }
}

/** The current conversation's id; null before the server has issued one. */
export function currentId() {
  return read(CURRENT_KEY) ?? memory.current;
}

/** The ids of this browser's conversations, most recent first (anything unreadable is dropped). */
export function knownIds() {
  const raw = read(LIST_KEY);
  if (raw === null) return memory.ids.slice();
  try {
    const parsed = JSON.parse(raw);
    return Array.isArray(parsed) ? parsed.filter((id) => typeof id === 'string' && ID.test(id)) : [];
  } catch {
    return [];
  }
}

/**
 * Puts `id` first in the list of conversations (the oldest beyond 50 is forgotten).
 * @param {string} id
 */
export function remember(id) {
  const ids = [id, ...knownIds().filter((k) => k !== id)].slice(0, MAX_CONVERSATIONS);
  memory.ids = ids;
  write(LIST_KEY, JSON.stringify(ids));
}

/**
 * Makes `id` the current conversation and the most recent in the list.
 * @param {string} id
 */
export function makeCurrent(id) {
  memory.current = id;
  write(CURRENT_KEY, id);
  remember(id);
}

/**
 * Drops ids from the list (deleted, or no longer held by the server); the current conversation stays current.
 * @param {string[]} ids
 */
export function forget(ids) {
  if (ids.length === 0) return;
  const gone = new Set(ids);
  const kept = knownIds().filter((k) => !gone.has(k));
  memory.ids = kept;
  write(LIST_KEY, JSON.stringify(kept));
}

/** Leaves the current conversation: the next message starts a new one (the server issues its id). */
export function startNew() {
  memory.current = null;
  write(CURRENT_KEY, null);
}

// A browser that chatted before the list existed has a current id but no list: the list starts with it.
const existing = currentId();
if (existing && !knownIds().includes(existing)) makeCurrent(existing);
