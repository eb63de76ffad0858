// "Updates from your platform": the platform's signed events as the chat's assistant was told them,
// in the conversations panel. Read from GET …/workers/{id}/events: at start, every 5 s while the page is
// visible, and at once when the page becomes visible again (back from approving in the review queue).
import { apiCall, workerUrl } from './settings-api.js';
import { renderMarkdownInto } from './markdown.js';
import { lastActiveLabel } from './time-labels.js';

const SHOWN = 5;
const POLL_MS = 5_000;

/** @typedef {{ id: string, message: string, receivedAt: string, type: string }} FeedEvent */

/**
 * @param {{ section: HTMLElement, list: HTMLUListElement, workspaceId: string, workerId: string }} o
 */
export function startEventFeed({ section, list, workspaceId, workerId }) {
  /** @type {string | null} */
  let newest = null;
  let busy = false;

  /** @param {FeedEvent} e */
  function item(e) {
    const li = document.createElement('li');
    li.className = 'event';
    li.dataset.eventType = e.type;
    const text = document.createElement('div');
    text.className = 'event-text';
    renderMarkdownInto(text, e.message);
    const at = document.createElement('time');
    at.className = 'event-time';
    at.dateTime = e.receivedAt;
    at.textContent = lastActiveLabel(e.receivedAt);
    li.append(text, at);
    return li;
  }

  async function refresh() {
    if (busy) return;
    busy = true;
    try {
      const { events } = /** @type {{ events: FeedEvent[] }} */ (
        await apiCall(`${workerUrl(workerId)}/events?limit=${SHOWN}`, { workspaceId })
      );
      if (events.length === 0) return;
      if (events[0]?.id === newest) return;
      newest = events[0]?.id ?? null;
      list.replaceChildren(...events.map(item));
      section.hidden = false;
    } catch {
      // the feed is a side panel: a failed read leaves what is shown and tries again at the next tick
    } finally {
      busy = false;
    }
  }

  void refresh();
  const timer = setInterval(() => {
    if (document.visibilityState === 'visible') void refresh();
  }, POLL_MS);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') void refresh();
  });
  return { refresh, stop: () => clearInterval(timer) };
}
