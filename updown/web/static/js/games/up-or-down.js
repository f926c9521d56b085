// Up or Down?: the ring drawn as a circle, both piles, every player's columns with direction and
// running score. Each colour is shown by its colour AND a shape, so colour-blind players can play.
import { h } from '../vdom.js';
import { t } from '../i18n.js';
import { actionButton, canPlay, legalMap, seatBox, seatName } from '../board.js';
import { chip } from './common.js';

const COLOURS = ['ruby', 'gold', 'pink', 'blue', 'purple', 'green'];
const SHAPES = ['◆', '★', '●', '■', '▲', '✚'];

function colourName(i) {
  return [t('ruby'), t('gold'), t('pink'), t('blue'), t('purple'), t('green')][i];
}

export function colourOf(n) { return (n - 1) % 6; }

function numCard(n, opts = {}) {
  const c = colourOf(n);
  return h('span', {class: `ncard col-${COLOURS[c]} ${opts.cls || ''}`, title: `${n} (${colourName(c)})`,
                    'aria-label': `${n} ${colourName(c)}`, role: 'img'},
    h('span', {class: 'shape', 'aria-hidden': 'true'}, SHAPES[c]), h('span', {class: 'num'}, String(n)));
}

function ring(ctx) {
  const v = ctx.view;
  const cards = v.display || [];
  const n = cards.length;
  const placed = cards.map((c, i) => {
    const angle = (i / Math.max(1, n)) * 2 * Math.PI - Math.PI / 2;
    const style = {left: `${50 + 41 * Math.cos(angle)}%`, top: `${50 + 41 * Math.sin(angle)}%`};
    const action = `take ${c}`;
    const cls = c === v.played ? 'just-played' : '';
    return canPlay(ctx, action)
      ? actionButton(ctx, action, numCard(c, {cls}), {cls: 'ring-card', label: t('Take {n}', {n: c}), style})
      : h('span', {class: 'ring-card', style}, numCard(c, {cls}));
  });
  const down = canPlay(ctx, 'draw down')
    ? actionButton(ctx, 'draw down', pileFace(null, v.down, 'down'), {cls: 'pile', label: t('Draw from the face-down pile')})
    : h('div', {class: 'pile'}, pileFace(null, v.down, 'down'));
  const up = canPlay(ctx, 'draw up')
    ? actionButton(ctx, 'draw up', pileFace(v.up_top, v.up, 'up'), {cls: 'pile', label: t('Draw the face-up card')})
    : h('div', {class: 'pile'}, pileFace(v.up_top, v.up, 'up'));
  return h('div', {class: 'ring', 'aria-label': t('The display')}, h('div', {class: 'ring-line'}), placed, h('div', {class: 'piles'}, down, up));
}

function pileFace(top, count, kind) {
  return h('span', {class: 'pile-face'},
    top === null ? h('span', {class: 'ncard back'}, count ? (kind === 'up' ? '▲' : '▼') : '∅') : numCard(top),
    h('span', {class: 'pile-count'}, kind === 'down' ? t('face down: {n}', {n: count}) : t('face up: {n}', {n: count})));
}

function columnNode(ctx, s, k, col) {
  const mine = s === ctx.mySeat;
  const dir = col && col.direction ? (col.direction === 'up' ? '↑' : '↓') : '·';
  const dirText = col && col.direction ? (col.direction === 'up' ? t('rising') : t('falling')) : t('open direction');
  const body = col
    ? h('span', {class: 'col-body'}, h('span', {class: 'dir', title: dirText, 'aria-label': dirText}, dir),
      col.cards.map((c) => numCard(c, {cls: 'small'})), h('span', {class: 'col-score'}, `= ${col.score}`))
    : h('span', {class: 'col-body muted'}, t('empty'));
  const parts = [h('span', {class: 'col-no'}, `${k}`), body];
  // Empty columns are small and share a line (app.css), so they take no screen height.
  const cls = col ? 'column' : 'column empty';
  if (mine && canPlay(ctx, `col ${k}`)) {
    return h('div', {class: cls}, actionButton(ctx, `col ${k}`, parts, {cls: 'col-btn', label: t('Put it on column {k}', {k})}));
  }
  return h('div', {class: cls}, parts,
    mine && canPlay(ctx, `give up ${k}`) ? actionButton(ctx, `give up ${k}`, t('give up'), {cls: 'small-btn'}) : null);
}

export default {
  id: 'up-or-down',
  clockwise: true,
  handCards: (view) => view.hand || [],
  cardNode: (c, opts) => numCard(c, opts),
  cardLabel: (c) => `${c} ${colourName(colourOf(c))}`,
  cardAction(ctx, c) { return legalMap(ctx).has(String(c)) ? String(c) : null; },
  boardActions(ctx) {
    return (ctx.legal || []).map((a) => a.notation).filter((a) => /^(take |col |draw )/.test(a));
  },
  info(ctx) {
    const v = ctx.view;
    return [
      chip(t('Game'), `${v.length === 'full' ? t('full') : t('short')} · 1–${v.highest}`),
      chip(t('Colours'), h('span', {class: 'legend'}, COLOURS.map((name, i) =>
        h('span', {class: `legend-item`}, h('span', {class: `ncard small col-${name}`}, h('span', {class: 'shape'}, SHAPES[i])), ' ', colourName(i))))),
      chip(t('Scoring'), t('per column: most frequent colour × length; +1 per discard')),
    ];
  },
  board(ctx) {
    const v = ctx.view;
    const rows = [];
    for (let s = 0; s < v.players; s++) {
      const cols = (v.columns[s] || []).map((col, k) => columnNode(ctx, s, k + 1, col));
      const known = (v.known && v.known[s]) || [];
      rows.push(h('div', {class: `player-row ${s === ctx.mySeat ? 'you' : ''} ${s === v.turn && v.phase !== 'over' ? 'turn' : ''}`},
        seatBox(ctx, s),
        h('div', {class: 'columns'}, cols),
        h('div', {class: 'row-score'},
          chip(t('score'), String(v.scores[s])), chip(t('discards'), String(v.discards[s])),
          known.length && s !== ctx.mySeat ? chip(t('known in hand'), known.map((c) => numCard(c, {cls: 'small'}))) : null)));
    }
    const taken = v.taken !== null && v.taken !== undefined
      ? h('div', {class: 'taken'}, t('Taken by {name}:', {name: seatName(ctx, v.turn)}), ' ', numCard(v.taken)) : null;
    return h('div', {class: 'felt list'}, h('div', {class: 'ring-wrap'}, ring(ctx), taken), h('div', {class: 'players'}, rows));
  },
  seatChips(ctx, s) {
    const v = ctx.view;
    // The seat whose turn it is: the board says "to play" when they must act now; "turn" only
    // while the turn is theirs but nothing is asked of them this moment (never both).
    return s === v.turn && v.phase !== 'over' && !(v.to_act || []).includes(s) ? [h('span', {class: 'tag lead'}, t('turn'))] : [];
  },
  prompt(ctx) {
    const p = ctx.view.phase;
    if (p === 'play') return t('Play a card from your hand into the display.');
    if (p === 'take') return t('Take one of the two neighbours of the card you played.');
    if (p === 'place') return t('Put the taken card on a column, start a new one, or give one up.');
    if (p === 'draw') return t('Draw a card: face down or face up.');
    return null;
  },
  alsoButton: () => true,
  actionLabel(ctx, a) {
    if (a === 'new') return t('New column');
    if (a === 'draw down') return t('Draw face down');
    if (a === 'draw up') return t('Draw face up');
    let m = /^take (\d+)$/.exec(a);
    if (m) return t('Take {n}', {n: m[1]}) + ` (${colourName(colourOf(+m[1]))})`;
    m = /^col (\d)$/.exec(a);
    if (m) return t('Column {k}', {k: m[1]});
    m = /^give up (\d)$/.exec(a);
    if (m) return t('Give up column {k}', {k: m[1]});
    return a;
  },
};
