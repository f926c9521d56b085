// What the three French-card games share: the hand, card buttons, the trick on the table.
import { h } from '../dom.js';
import { t } from '../i18n.js';
import { cardFace, cardLabel, cardText, splitCard } from '../cards.js';
import { legalMap, seatName } from '../board.js';

export const frenchCards = {
  handCards: (view) => view.hand || [],
  cardNode: (c, opts) => cardFace(c, opts),
  cardLabel: (c) => cardLabel(c),
  cardShort: (c) => cardText(c),
  // A hand card plays itself, or discards itself in a discard phase.
  cardAction(ctx, c) {
    const legal = legalMap(ctx);
    if (legal.has(c)) return c;
    if (legal.has(`discard ${c}`)) return `discard ${c}`;
    return null;
  },
};

export function chip(label, value, cls = '') {
  return h('span', {class: `chip ${cls}`}, label ? h('span', {class: 'chip-label'}, label) : null,
    value === undefined ? null : h('span', {class: 'chip-value'}, value));
}

// The trick in progress from view.table ([[seat, card], ...]), else the last finished trick.
export function trickSlots(ctx, tableCards, lastTrick) {
  const slots = {};
  if (tableCards && tableCards.length) {
    for (const [s, c] of tableCards) slots[s] = cardFace(c, {cls: 'played'});
    return {slots, caption: null};
  }
  if (!lastTrick) return {slots, caption: null};
  for (const [s, c] of lastTrick.pairs) {
    slots[s] = cardFace(c, {cls: `played last ${s === lastTrick.winner ? 'winner' : ''}`});
  }
  const caption = lastTrick.winner === null || lastTrick.winner === undefined
    ? t('Last trick')
    : t('Last trick: {name} wins', {name: seatName(ctx, lastTrick.winner)});
  return {slots, caption};
}

export function suitOf(card) { return splitCard(card).suit; }
