// Euchre: trump, maker, dealer, up-card, who sits out, the score.
import { h } from '../vdom.js';
import { t } from '../i18n.js';
import { cardFace, cardText, suitBadge, suitName } from '../cards.js';
import { seatName } from '../board.js';
import { chip, frenchCards, lastTrickOf, trickSlots } from './common.js';

export default {
  id: 'euchre',
  clockwise: true,
  ...frenchCards,
  info(ctx) {
    const v = ctx.view;
    const out = [];
    const team = (a, b) => `${seatName(ctx, a)} & ${seatName(ctx, b)}`;
    out.push(chip(t('Score'), h('span', {}, team(0, 2), ' ', h('strong', {}, String(v.totals[0])), ' – ',
      h('strong', {}, String(v.totals[1])), ' ', team(1, 3)), 'score'));
    out.push(chip(t('Playing to'), String(v.target)));
    out.push(chip(t('Dealer'), seatName(ctx, v.dealer)));
    if (v.upcard) {
      const down = !v.up_taken && v.phase !== 'bid1' && v.trump !== v.upcard.slice(-1);
      out.push(chip(t('Up-card'), h('span', {}, cardFace(v.upcard, {cls: `small ${down ? 'turned-down' : ''}`}),
        down ? ` ${t('turned down')}` : '')));
    }
    if (v.trump) {
      out.push(chip(t('Trump'), h('span', {}, suitBadge(v.trump), ' ', suitName(v.trump)), 'trump'));
      out.push(chip(t('Maker'), seatName(ctx, v.maker) + (v.alone ? ` (${t('alone')})` : '')));
      out.push(chip(t('Tricks'), `${v.team_tricks[0]}–${v.team_tricks[1]}`));
    } else {
      out.push(chip(t('Trump'), t('not made yet')));
    }
    if (v.out && v.out.length) out.push(chip(t('Sits out'), v.out.map((s) => seatName(ctx, s)).join(', '), 'hot'));
    out.push(chip(t('Deal'), String(v.deal)));
    return out;
  },
  seatChips(ctx, s) {
    const v = ctx.view;
    const out = [h('span', {class: 'chip small'}, t('tricks {n}', {n: v.tricks[s]}))];
    if (v.dealer === s) out.push(h('span', {class: 'tag lead'}, t('dealer')));
    if (v.maker === s && v.trump) out.push(h('span', {class: 'tag chosen'}, t('maker')));
    if ((v.out || []).includes(s)) out.push(h('span', {class: 'tag warn'}, t('sits out')));
    out.push(h('span', {class: 'chip small team'}, s % 2 === 0 ? t('team A') : t('team B')));
    return out;
  },
  lastTrick(ctx) {
    return lastTrickOf(ctx, (ev) => ev.seats.map((s, i) => [s, ev.cards[i]]), (ev) => ev.deal === ctx.view.deal);
  },
  played(ctx) {
    return trickSlots(ctx, ctx.view.table, ctx.game.lastTrick(ctx));
  },
  handNote(ctx) {
    return ctx.view.discard ? h('span', {class: 'muted note'}, ' · ', t('discarded'), ' ', cardFace(ctx.view.discard, {cls: 'small'})) : null;
  },
  prompt(ctx) {
    const p = ctx.view.phase;
    if (p === 'bid1') return t('Order the up-card up (the dealer takes it), or pass.');
    if (p === 'bid2') return t('Name a trump suit, or pass.');
    if (p === 'discard') {
      // The dealer keeps the up-card (the rules: the discard comes from the original five).
      return ctx.view.upcard
        ? t('You picked up the up-card {card} and keep it: click one of your own five cards to discard it.', {card: cardText(ctx.view.upcard)})
        : t('You picked up the up-card: click a card to discard it.');
    }
    if (p === 'defend') return t('Defend alone, or pass.');
    return t('Play a card.');
  },
  actionLabel(ctx, a) {
    if (a === 'pass') return t('Pass');
    if (a === 'order up') return t('Order up');
    if (a === 'order up alone') return t('Order up, alone');
    if (a === 'pick up') return t('Pick up');
    if (a === 'pick up alone') return t('Pick up, alone');
    if (a === 'defend alone') return t('Defend alone');
    let m = /^name ([CDHS])( alone)?$/.exec(a);
    if (m) return m[2] ? t('Name {suit}, alone', {suit: suitName(m[1])}) : t('Name {suit}', {suit: suitName(m[1])});
    m = /^discard (.+)$/.exec(a);
    if (m) return t('Discard {card}', {card: cardText(m[1])});
    return a;
  },
};
