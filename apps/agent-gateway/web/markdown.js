// Assistant replies are Markdown. They are rendered with marked and then sanitised with DOMPurify before they
// touch the DOM; user text never goes through here (it is shown as plain text).
//
// Raw HTML inside the Markdown is not rendered at all: it is shown as the text it is (a model quoting `<b>` or a
// user's message echoed back shows the tags literally). DOMPurify then removes anything dangerous that Markdown
// itself can express, such as `javascript:` links.
import { Marked } from '/vendor/marked.esm.js';
import DOMPurify from '/vendor/purify.es.mjs';

/** @type {Record<string, string>} */
const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (/** @type {string} */ s) => String(s).replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

const md = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  renderer: {
    html({ text, block }) {
      return block ? `<p>${escapeHtml(text.trim())}</p>\n` : escapeHtml(text);
    },
  },
});

// Links open in a new tab without handing the opener over; nothing else may carry a target.
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A' && node.hasAttribute('href')) {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer nofollow');
  } else if (node.hasAttribute && node.hasAttribute('target')) {
    node.removeAttribute('target');
  }
});

const PURIFY_OPTIONS = {
  USE_PROFILES: { html: true },
  FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'object', 'embed'],
  FORBID_ATTR: ['style', 'class', 'id'],
  ADD_ATTR: ['target'],
  RETURN_DOM_FRAGMENT: true,
};

/**
 * Markdown text → a sanitised DocumentFragment.
 * @param {string | null | undefined} text
 */
export function renderMarkdown(text) {
  const html = md.parse(String(text ?? ''));
  return DOMPurify.sanitize(typeof html === 'string' ? html : '', PURIFY_OPTIONS);
}

/**
 * Replaces the children of `element` with the rendered Markdown.
 * @param {Element} element
 * @param {string | null | undefined} text
 */
export function renderMarkdownInto(element, text) {
  const fragment = /** @type {DocumentFragment} */ (/** @type {unknown} */ (renderMarkdown(text)));
  for (const table of fragment.querySelectorAll('table')) wrapTable(table);
  element.replaceChildren(fragment);
}

// Money, counts and percentages read best right-aligned, so their digits line up: £1,395 · 12 · 92.1% · -£40.
const NUMERIC = /^[-−]?£?[-−]?\d[\d,]*(\.\d+)?%?$/;
// A column of short values (refs, dates, names, statuses) is kept on one line; long ones (addresses) wrap.
const SHORT = 18;

/**
 * A reply's table scrolls sideways inside its own box on a narrow screen (the page never does), and its numeric
 * columns are right-aligned. The classes are set after sanitising, which strips any that came in the Markdown.
 *
 * A phone shows about three columns of a wide table, and nothing said there were more: so the box says so. While
 * columns are hidden to the right, its edge fades and "Scroll for more" shows under it; the first column (the
 * property, as a rule) stays in place while the rest scroll (reply-tables.css).
 * @param {HTMLTableElement} table
 */
function wrapTable(table) {
  const box = document.createElement('div');
  box.className = 'table-box';
  const wrap = document.createElement('div');
  wrap.className = 'table-wrap';
  wrap.tabIndex = 0; // a scrollable region must be reachable from the keyboard (the arrow keys then scroll it)
  wrap.setAttribute('role', 'region');
  wrap.setAttribute('aria-label', 'Table');
  const hint = document.createElement('p');
  hint.className = 'table-hint';
  hint.setAttribute('aria-hidden', 'true'); // the region's own label says it to a screen reader
  hint.textContent = 'Scroll for more';
  table.replaceWith(box);
  wrap.append(table);
  box.append(wrap, hint);
  markColumns(table);
  followOverflow(box, wrap, table);
}

/**
 * Keeps `data-overflow` on the box up to date: none (it all fits), end (more to the right), both, start (scrolled
 * to the end). A reply is rendered again as it streams in, so each box watches only its own elements and is
 * forgotten with them.
 * @param {HTMLElement} box
 * @param {HTMLElement} wrap
 * @param {HTMLTableElement} table
 */
function followOverflow(box, wrap, table) {
  const update = () => {
    const hidden = wrap.scrollWidth - wrap.clientWidth;
    const x = Math.abs(wrap.scrollLeft);
    const state = hidden <= 1 ? 'none' : x <= 1 ? 'end' : x >= hidden - 1 ? 'start' : 'both';
    if (box.dataset.overflow === state) return;
    box.dataset.overflow = state;
    wrap.setAttribute('aria-label', state === 'none' ? 'Table' : 'Table, scrolls sideways');
  };
  box.dataset.overflow = 'none';
  wrap.addEventListener('scroll', update, { passive: true });
  if (typeof ResizeObserver === 'function') {
    const observer = new ResizeObserver(update);
    observer.observe(wrap);
    observer.observe(table);
  }
}

/**
 * Right-aligns numeric columns and keeps short ones on one line.
 * @param {HTMLTableElement} table
 */
function markColumns(table) {
  const rows = [...table.tBodies].flatMap((b) => [...b.rows]);
  const columns = table.tHead?.rows[0]?.cells.length ?? 0;
  /**
   * @param {number} c
   * @param {string} name
   */
  const mark = (c, name) => {
    table.tHead?.rows[0]?.cells[c]?.classList.add(name);
    for (const r of rows) r.cells[c]?.classList.add(name);
  };
  for (let c = 0; c < columns; c++) {
    const values = rows.map((r) => r.cells[c]?.textContent?.trim() ?? '').filter(Boolean);
    if (values.length === 0) continue;
    if (values.every((v) => NUMERIC.test(v))) mark(c, 'num');
    else if (values.every((v) => v.length <= SHORT)) mark(c, 'short');
  }
}
