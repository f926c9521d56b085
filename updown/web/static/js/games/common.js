// What the three French-card games share: the hand, card buttons, the trick on the table.
import { h } from '../vdom.js';
import { t } from '../i18n.js';
import { cardFace, cardLabel, cardText, splitCard } from '../cards.js';
import { eventLine, lastEvent, legalMap, seatName } from '../board.js';

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

// The trick in progress from view.table ([[seat, card], ...] in the order played), else the last
// finished trick of this deal (`last`, from lastTrick below). Returns the cards by seat, the seat
// that led (the board marks it and names every card's player) and the caption.
export function trickSlots(ctx, tableCards, last) {
  const slots = {};
  if (tableCards && tableCards.length) {
    for (const [s, c] of tableCards) slots[s] = cardFace(c, {cls: 'played'});
    return {slots, caption: null, led: tableCards[0][0]};
  }
  if (!last || !last.current) return {slots, caption: null, led: null};
  for (const [s, c] of last.pairs) {
    slots[s] = cardFace(c, {cls: `played last ${s === last.winner ? 'winner' : ''} ${(last.marks && last.marks[s]) || ''}`});
  }
  // The board's line under the trick says who won and why; this short caption stands in without one.
  const caption = eventLine(ctx, last.event) ? null : last.winner === null || last.winner === undefined
    ? t('Last trick')
    : t('Last trick: {name} wins', {name: seatName(ctx, last.winner)});
  return {slots, caption, led: last.led};
}

// The last finished trick (of any deal: the board's "last trick" view outlives the deal) from its
// event alone: {event, pairs: [[seat, card], ...] in the order played, led, winner, marks, current}.
// `current` says it belongs to the deal (or round) on the table now.
export function lastTrickOf(ctx, pairsOf, current) {
  const ev = lastEvent(ctx, 'trick');
  if (!ev) return null;
  const pairs = pairsOf(ev);
  return {event: ev, pairs, led: pairs.length ? pairs[0][0] : null, winner: ev.winner, marks: {}, current: current(ev)};
}

export function suitOf(card) { return splitCard(card).suit; }
