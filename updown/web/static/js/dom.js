// A tiny element builder: h('div', {class: 'x', onclick: f}, 'text', child, [more]). The pages
// other than the live table use it; the table's board is drawn with vdom.js's h (vnodes, patched).
/** @typedef {Node | string | number | null | undefined | false} Leaf */
/** @typedef {Leaf | Array<Leaf | Array<Leaf | Array<Leaf>>>} Child */
/**
 * The element's own type follows its tag (h('input') is an HTMLInputElement).
 * @template {string} K
 * @param {K} tag
 * @param {Record<string, any> | null} [attrs]
 * @param {...Child} children
 * @returns {K extends keyof HTMLElementTagNameMap ? HTMLElementTagNameMap[K] : HTMLElement}
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'style' && typeof v === 'object') Object.assign(el.style, v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return /** @type {any} */ (el); // createElement(tag) is of the type the tag names
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else if (c instanceof Node) el.appendChild(c);
    else el.appendChild(document.createTextNode(String(c)));
  }
}

export function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); return el; }

export function mount(el, ...children) { clear(el); append(el, children); return el; }

// A very small Markdown subset for the rules: headings, lists, paragraphs, **bold**, *italic*.
export function markdown(text) {
  const root = h('div', {class: 'md'});
  let list = null; let para = [];
  const inline = (s) => {
    const out = []; const re = /\*\*(.+?)\*\*|\*(.+?)\*|`(.+?)`/g; let last = 0; let m;
    while ((m = re.exec(s))) {
      out.push(s.slice(last, m.index));
      out.push(m[1] ? h('strong', {}, m[1]) : m[2] ? h('em', {}, m[2]) : h('code', {}, m[3]));
      last = re.lastIndex;
    }
    out.push(s.slice(last));
    return out;
  };
  const flush = () => { if (para.length) root.appendChild(h('p', {}, inline(para.join(' ')))); para = []; };
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    const head = /^(#{1,4})\s+(.*)$/.exec(line);
    const item = /^\s*(?:[-*]|\d+\.)\s+(.*)$/.exec(line);
    if (head) { flush(); list = null; root.appendChild(h('h' + Math.min(6, head[1].length + 2), {}, inline(head[2]))); }
    else if (item) { flush(); if (!list) { list = h('ul'); root.appendChild(list); } list.appendChild(h('li', {}, inline(item[1]))); }
    else if (!line.trim()) { flush(); list = null; }
    else { const li = list && list.lastElementChild; if (li) li.append(' ', ...inline(line.trim())); else para.push(line.trim()); }
  }
  flush();
  return root;
}

// Go to a page of the site without reloading it (app.js routes on popstate).
export function navigate(path) {
  history.pushState({}, '', path);
  window.dispatchEvent(new PopStateEvent('popstate'));
}
