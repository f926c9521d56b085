// French-suited cards (UP&DOWN, Euchre, Sueca) drawn from their notation: "QH", "10S". The notation
// stays English wherever a card is sent or named in an attribute (data-card, data-action, data-c);
// what is shown uses the card letters of the page's language (rankLetter: D♥ in German).
import { h } from './vdom.js';
import { rankLetter, t } from './i18n.js';

export const SUIT_SYMBOL = {C: '♣', D: '♦', H: '♥', S: '♠'};
const RANK_VALUE = {J: 11, Q: 12, K: 13, A: 14};

export function suitName(letter) {
  return {C: t('clubs'), D: t('diamonds'), H: t('hearts'), S: t('spades')}[letter] || letter;
}

export function splitCard(card) { return {rank: card.slice(0, -1), suit: card.slice(-1)}; }

export function rankValue(rank) { return RANK_VALUE[rank] || parseInt(rank, 10); }

export function cardLabel(card) {
  const {rank, suit} = splitCard(card);
  const r = {J: t('jack'), Q: t('queen'), K: t('king'), A: t('ace')}[rank] || rank;
  return t('{rank} of {suit}', {rank: r, suit: suitName(suit)});
}

// A card as text in the page's letters: "10♥", "Q♥" (German and Portuguese "D♥").
export function cardText(card) {
  const {rank, suit} = splitCard(card);
  return `${rankLetter(rank)}${SUIT_SYMBOL[suit] || suit}`;
}

// The face of a card. opts.cls adds classes.
export function cardFace(card, opts = {}) {
  const {rank, suit} = splitCard(card);
  const red = suit === 'H' || suit === 'D';
  return h('span', {class: `card ${red ? 'red' : 'black'} suit-${suit} ${opts.cls || ''}`, title: cardLabel(card),
                    'aria-label': cardLabel(card), role: 'img', 'data-c': card},
    h('span', {class: 'rank'}, rankLetter(rank)), h('span', {class: 'pip'}, SUIT_SYMBOL[suit] || suit));
}

export function cardBack(opts = {}) {
  return h('span', {class: `card back ${opts.cls || ''}`, title: opts.title || t('face down'),
                    'aria-label': opts.title || t('face down'), role: 'img'});
}

export function suitBadge(letter) {
  const red = letter === 'H' || letter === 'D';
  return h('span', {class: `suit ${red ? 'red' : 'black'}`, title: suitName(letter)}, SUIT_SYMBOL[letter] || letter);
}
