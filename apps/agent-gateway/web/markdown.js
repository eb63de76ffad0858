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
  element.replaceChildren(renderMarkdown(text));
}
