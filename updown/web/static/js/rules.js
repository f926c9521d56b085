// The game's rules, one click away, in the player's language.
import { h, markdown, mount } from './dom.js';
import { lang, t } from './i18n.js';

export function modal(title, body, buttons) {
  const root = document.getElementById('modal-root');
  const close = () => { mount(root); document.removeEventListener('keydown', onKey); };
  const onKey = (e) => { if (e.key === 'Escape') close(); };
  document.addEventListener('keydown', onKey);
  const dialog = h('div', {class: 'modal', role: 'dialog', 'aria-modal': 'true', 'aria-label': title},
    h('div', {class: 'modal-head'}, h('h2', {}, title),
      h('button', {type: 'button', class: 'icon', onclick: close, 'aria-label': t('Close')}, '×')),
    h('div', {class: 'modal-body'}, body),
    h('div', {class: 'modal-buttons'}, (buttons || []).map(([label, fn, cls]) =>
      h('button', {type: 'button', class: cls || '', onclick: () => { close(); if (fn) fn(); }}, label))));
  mount(root, h('div', {class: 'backdrop', onclick: (e) => { if (e.target === e.currentTarget) close(); }}, dialog));
  const first = dialog.querySelector('.modal-buttons button') || dialog.querySelector('button');
  if (first instanceof HTMLElement) first.focus();
  return close;
}

async function fetchRules(game) {
  for (const base of ['/api/rules/']) {
    try {
      const r = await fetch(`${base}${encodeURIComponent(game)}?lang=${lang}`);
      if (r.ok) { const data = await r.json(); if (data && data.markdown) return data.markdown; }
    } catch (e) { /* try the next */ }
  }
  return null;
}

export async function showRules(game, gameName) {
  const body = h('div', {class: 'rules'}, h('p', {class: 'muted'}, t('Loading…')));
  modal(t('Rules: {game}', {game: gameName || game}), body, [[t('Close'), null]]);
  const text = await fetchRules(game);
  mount(body, text ? markdown(text) : h('p', {class: 'muted'}, t('The rules are not available right now.')));
}
