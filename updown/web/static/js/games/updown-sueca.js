// The Sueca Up&Down: trump, who plays and who sits out, the scores, the RISCOS at stake.
import { h } from '../vdom.js';
import { t } from '../i18n.js';
import { cardFace, cardText, suitBadge, suitName } from '../cards.js';
import { seatName } from '../board.js';
import { chip, frenchCards, lastTrickOf, trickSlots } from './common.js';

export default {
  id: 'updown-sueca',
  clockwise: false, // play passes to the right: seat s + 1 sits on seat s's right
  ...frenchCards,
  info(ctx) {
    const v = ctx.view;
    const out = [];
    if (v.trump) {
      out.push(chip(t('Trump'), h('span', {}, suitBadge(v.trump), ' ', suitName(v.trump),
        v.turned ? [' (', t('turned'), ' ', cardFace(v.turned, {cls: 'small'}), ')'] : null), 'trump'));
    } else {
      out.push(chip(t('Trump'), t('{name} chooses', {name: seatName(ctx, v.chooser)})));
    }
    if (v.trick_value === 2) out.push(chip(null, t('tricks count double'), 'hot'));
    out.push(chip(t('Scores'), h('span', {class: 'suit-list'}, v.scores.map((sc, s) =>
      h('span', {class: 'suit-of'}, seatName(ctx, s), ' ', h('strong', {}, String(sc)))))));
    const who = v.decisions.map((d, s) => d === null ? null
      : h('span', {class: `suit-of ${d === 'play' ? '' : 'muted'}`}, seatName(ctx, s), ' ', d === 'play' ? t('plays') : t('sits out')))
      .filter(Boolean);
    if (who.length) out.push(chip(t('This deal'), h('span', {class: 'suit-list'}, who)));
    out.push(chip(t('RISCOS at stake'), t('the winner (first to 0) gets each loser\'s final score; leaving costs 100'), 'riscos'));
    out.push(chip(t('Deal'), `${v.deal} · ${t('dealer')} ${seatName(ctx, v.dealer)}`));
    if (v.phase === 'trick') out.push(chip(t('Trick'), `${v.trick}/5`));
    return out;
  },
  seatChips(ctx, s) {
    const v = ctx.view;
    const out = [h('span', {class: 'chip small score'}, t('score {n}', {n: v.scores[s]}))];
    const d = v.decisions[s];
    if (d === 'play') out.push(h('span', {class: 'tag chosen', title: v.forced[s] || ''}, t('plays') + (v.forced[s] ? ' *' : '')));
    else if (d === 'sit out') out.push(h('span', {class: 'tag warn'}, t('sits out')));
    if (d === 'play' && v.phase === 'trick') out.push(h('span', {class: 'chip small'}, t('tricks {n}', {n: v.tricks[s]})));
    if (v.exchanged[s] !== null && v.exchanged[s] !== undefined) out.push(h('span', {class: 'chip small'}, t('exchanged {n}', {n: v.exchanged[s]})));
    if (v.dealer === s) out.push(h('span', {class: 'tag lead'}, t('dealer')));
    if ((v.left || []).includes(s)) out.push(h('span', {class: 'tag warn'}, t('left')));
    return out;
  },
  lastTrick(ctx) {
    return lastTrickOf(ctx, (ev) => ev.cards, (ev) => ev.deal === ctx.view.deal);
  },
  played(ctx) {
    return trickSlots(ctx, ctx.view.table, ctx.game.lastTrick(ctx));
  },
  handNote(ctx) {
    const d = ctx.view.my_discards || [];
    return d.length ? h('span', {class: 'muted note'}, ' · ', t('exchanged away'), ' ', d.map((c) => cardFace(c, {cls: 'small'}))) : null;
  },
  prompt(ctx) {
    const p = ctx.view.phase;
    if (p === 'trump') return t('Choose the trump suit, or turn your next card: its suit is trump.');
    if (p === 'decide') return t('Play this deal, or sit out?');
    if (p === 'exchange') return t('Click cards to exchange them with the stock, then Done.');
    return t('Play a card.');
  },
  actionLabel(ctx, a) {
    if (a === 'turn') return t('Turn the next card');
    if (a === 'play') return t('Play this deal');
    if (a === 'sit out') return t('Sit out');
    if (a === 'done') return t('Done');
    let m = /^trump ([CDHS])$/.exec(a);
    if (m) return t('Trump: {suit}', {suit: suitName(m[1])});
    m = /^discard (.+)$/.exec(a);
    if (m) return t('Exchange {card}', {card: cardText(m[1])});
    return a;
  },
};
