// The Settings line under the platform connection that says how much of the agency's knowledge (property notes,
// landlord instructions, procedures) the assistant holds and when it was last synced: "42 documents synced,
// last at 14:05." The sync itself runs on the gateway; this only reads its status
// (GET /api/assistant/workers/:id/knowledge). Shown only while the worker is connected.
import { apiCall, workerUrl } from './settings-api.js';
import { el } from './dom.js';
import { plural } from './settings-format.js';

const time = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
const day = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric' });

/** @param {Date} d */
const startOfDay = (d) => new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();

/**
 * When the last sync finished, in words: "at 14:05" today, "yesterday at 14:05", else "on 19 Oct 2026 at 14:05".
 * @param {string} iso
 * @param {Date} [now]
 */
export function syncedWhen(iso, now = new Date()) {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return '';
  const days = Math.round((startOfDay(now) - startOfDay(at)) / 86_400_000);
  if (days <= 0) return `at ${time.format(at)}`;
  if (days === 1) return `yesterday at ${time.format(at)}`;
  return `on ${day.format(at).replace('Sept', 'Sep')} at ${time.format(at)}`;
}

/**
 * The sentence for a status.
 * @param {{ documents: number, lastSyncedAt: string | null, lastError: string | null }} s
 * @param {string} who
 * @param {Date} [now]
 */
export function knowledgeWords(s, who, now = new Date()) {
  if (!s.lastSyncedAt && s.lastError) return `The agency’s documents could not be synced yet: ${s.lastError}`;
  if (!s.lastSyncedAt) return `The agency’s documents are being synced for ${who}…`;
  const head =
    s.documents === 0
      ? `No documents synced yet (the platform holds none), last checked ${syncedWhen(s.lastSyncedAt, now)}.`
      : `${plural(s.documents, 'document', 'documents')} synced, last ${syncedWhen(s.lastSyncedAt, now)}.`;
  return s.lastError ? `${head} The latest sync failed: ${s.lastError}` : head;
}

/**
 * @param {{ workspaceId: string, workerId: string, who: string }} o
 */
export function createKnowledgeLine(o) {
  const line = el('p', { class: 'knowledge-line', 'data-fact': 'knowledge', hidden: '' });
  let asked = 0;

  /** Reads the status again; hides the line while not connected. @param {boolean} bound */
  async function update(bound) {
    const ask = ++asked;
    if (!bound) {
      line.hidden = true;
      return;
    }
    try {
      const status = await apiCall(`${workerUrl(o.workerId)}/knowledge`, { workspaceId: o.workspaceId });
      if (ask !== asked) return; // a newer read (after a reconnect) wins
      line.textContent = knowledgeWords(status, o.who);
      line.dataset.state = status.lastError ? 'error' : 'ok';
    } catch {
      if (ask !== asked) return;
      line.textContent = 'How many of the agency’s documents are synced could not be read just now.';
      line.dataset.state = 'error';
    }
    line.hidden = false;
  }
  return { element: line, update };
}
