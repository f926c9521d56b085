// The live table's virtual DOM: snabbdom (vendor/snabbdom, vendored as published: no build step).
// `h` takes the same arguments as dom.js's element builder, h('div', {class: 'x', onclick: f},
// 'text', child, [more]), but returns a vnode; `patch(old, next)` brings the page from the old vnode
// (or an element, the first time) to the next one, changing only what differs, so the elements
// that stay keep their focus, scroll, hover and running animations from one frame to the next.
//
// How the attributes are read:
//   - null, undefined and false leave the attribute out (and remove it when it was there);
//   - on<event> functions are listeners (snabbdom's `on`); `style` an object; `dataset` an object;
//   - `value` and `checked` are properties (what an input shows, not only its first value);
//   - 'data-key' is also the vnode's key: siblings with keys keep their elements when they move;
//   - everything else is an attribute (true as "").
// The element's first class is part of its selector, so a sibling of another kind (a prompt where
// a coach panel was) is a new element, not the old one changed into it.
import { init } from '../vendor/snabbdom/init.js';
import { h as vnodeOf } from '../vendor/snabbdom/h.js';
import { vnode as makeVnode } from '../vendor/snabbdom/vnode.js';
import { attributesModule } from '../vendor/snabbdom/modules/attributes.js';
import { propsModule } from '../vendor/snabbdom/modules/props.js';
import { styleModule } from '../vendor/snabbdom/modules/style.js';
import { datasetModule } from '../vendor/snabbdom/modules/dataset.js';
import { eventListenersModule } from '../vendor/snabbdom/modules/eventlisteners.js';

/** @typedef {import('../vendor/snabbdom/vnode.js').VNode} VNode */
/** @typedef {import('../vendor/snabbdom/vnode.js').VNodeData} VNodeData */
/** @typedef {VNode | string | number | null | undefined | false} Leaf */
/** @typedef {Leaf | Array<Leaf | Array<Leaf | Array<Leaf>>>} Child (lists nest; three deep is enough here) */

export const patch = init([attributesModule, propsModule, styleModule, datasetModule, eventListenersModule]);

const PROPS = new Set(['value', 'checked']);

/**
 * @param {string} tag
 * @param {Record<string, any> | null} [attrs]
 * @param {...Child} children
 * @returns {VNode}
 */
export function h(tag, attrs, ...children) {
  /** @type {Record<string, string | boolean>} */
  const at = {};
  /** @type {Record<string, any>} */
  const props = {};
  /** @type {Record<string, (ev: any) => void>} */
  const on = {};
  /** @type {VNodeData} */
  const data = {attrs: at, props, on};
  let sel = tag;
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') on[k.slice(2)] = v;
    else if (k === 'class') {
      const first = String(v).trim().split(/\s+/)[0];
      if (first) sel = `${tag}.${first}`;
      at.class = String(v).trim().replace(/\s+/g, ' ');
    } else if (k === 'style' && typeof v === 'object') data.style = v;
    else if (k === 'dataset') data.dataset = v;
    else if (k === 'key') data.key = v;
    else if (PROPS.has(k)) props[k] = v;
    else at[k] = v === true ? '' : String(v);
  }
  if (at['data-key'] !== undefined && data.key === undefined) data.key = String(at['data-key']);
  /** @type {(VNode | string)[]} */
  const kids = [];
  flatten(children, kids);
  // One piece of text is the element's text (set with textContent, as the page's own updates do).
  if (kids.length === 1 && typeof kids[0] === 'string') return vnodeOf(sel, data, kids[0]);
  return vnodeOf(sel, data, kids);
}

/** @param {any[]} children @param {(VNode | string)[]} out */
function flatten(children, out) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) flatten(c, out);
    else if (typeof c === 'object') out.push(adopt(c));
    else out.push(String(c));
  }
}

// A vnode is one element: one drawn in two places is copied for the second (snabbdom would
// otherwise give both places the same element).
const ADOPTED = new WeakSet();
/** @param {VNode} node @returns {VNode} */
function adopt(node) {
  if (!node || !('sel' in node)) {
    throw new TypeError(`not a vnode: ${node}`); // an element from dom.js's h drawn into a vnode
  }
  if (!ADOPTED.has(node)) { ADOPTED.add(node); return node; }
  return adopt(copy(node));
}

/** @param {VNode} node @returns {VNode} */
function copy(node) {
  const children = node.children && node.children.map((c) => (typeof c === 'string' ? c : copy(c)));
  return makeVnode(node.sel, node.data, children, node.text, undefined);
}
