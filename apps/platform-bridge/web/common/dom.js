// Building DOM from data without innerHTML: every text the API sends is set as text, never parsed as markup.

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, string | boolean | undefined> | null} [attrs] `class`, `hidden` and any attribute
 * @param {...(Node | string | null | undefined | false)} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === false) continue;
    el.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child);
  }
  return el;
}

const SVG = 'http://www.w3.org/2000/svg';

// Line icons (24×24, stroked with currentColor) drawn inline, so they need no font and no image request.
const ICONS = {
  warning: ['M12 3 2 20h20L12 3Z', 'M12 10v4', 'M12 17.2v.1'],
  home: ['M3 11 12 4l9 7', 'M5 10v10h14V10', 'M10 20v-6h4v6'],
  clock: ['M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18Z', 'M12 7v5l3 2'],
  user: ['M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8Z', 'M4 21c1-4 4-6 8-6s7 2 8 6'],
  check: ['M5 12.5 10 17l9-10'],
  cross: ['M6 6l12 12', 'M18 6 6 18'],
  note: ['M5 4h14v16H5z', 'M8 9h8', 'M8 13h8', 'M8 17h5'],
  key: ['M14 10a4 4 0 1 0-3.5 4', 'M13 11l7 7', 'M17 15l2-2', 'M19 17l2-2'],
  inbox: ['M3 13l3-8h12l3 8', 'M3 13v6h18v-6', 'M3 13h5l1 3h6l1-3h5'],
};

/** @param {keyof typeof ICONS} name */
export function icon(name) {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  svg.classList.add('icon');
  for (const d of ICONS[name]) {
    const path = document.createElementNS(SVG, 'path');
    path.setAttribute('d', d);
    svg.append(path);
  }
  return svg;
}
