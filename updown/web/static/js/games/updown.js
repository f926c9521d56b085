// UP&DOWN: UP/DOWN, each seat's suit, the trump value and its dice, the pot; the secret choice.
import { h } from '../vdom.js';
import { t } from '../i18n.js';
import { cardBack, cardFace, rankValue, splitCard, suitBadge, suitName } from '../cards.js';
import { eventLine, lastEvent, seatName } from '../board.js';
import { chip, frenchCards } from './common.js';

function die(n) { return h('span', {class: 'die', title: t('die {n}', {n})}, String(n)); }

function upDown(up) {
  return up ? h('span', {class: 'updown-badge up', title: t('UP: the highest eligible card wins')}, '▲ ', t('UP'))
    : h('span', {class: 'updown-badge down', title: t('DOWN: the lowest eligible card wins')}, '▼ ', t('DOWN'));
}

function trickResult(ctx, trick) {
  return trick.winner === null
    ? t('Trick {n}: no card can win; into the pot', {n: trick.trick})
    : t('Trick {n}: {name} wins', {n: trick.trick, name: seatName(ctx, trick.winner)});
}

export default {
  id: 'updown',
  clockwise: true,
  ...frenchCards,
  info(ctx) {
    const v = ctx.view;
    const out = [];
    if (v.up !== null && v.up !== undefined) out.push(upDown(v.up));
    if (v.trump !== null && v.trump !== undefined) {
      out.push(chip(t('Trump value'), h('span', {}, h('strong', {class: 'trump-value'}, String(v.trump)),
        v.dice ? [' ', die(v.dice[0]), die(v.dice[1])] : null), 'trump'));
    }
    if (v.suits) {
      out.push(chip(t('Suits'), h('span', {class: 'suit-list'}, v.suits.map((s, i) =>
        h('span', {class: 'suit-of'}, seatName(ctx, i), ' ', suitBadge(s))))));
    }
    out.push(chip(t('Pot'), String(v.pot), v.pot ? 'hot' : ''));
    out.push(chip(t('Round'), `${v.round}/${v.rounds}`));
    out.push(chip(t('Trick'), `${v.trick}/${v.tricks_per_round}`));
    return out;
  },
  seatChips(ctx, s) {
    const v = ctx.view;
    const out = [];
    if (v.suits) out.push(h('span', {class: 'chip small', title: t('own suit')}, suitBadge(v.suits[s])));
    out.push(h('span', {class: 'chip small'}, t('tricks {n}', {n: v.tricks[s]})));
    out.push(h('span', {class: 'chip small'}, t('total {n}', {n: v.totals[s]})));
    if (v.leader === s && v.phase !== 'over') out.push(h('span', {class: 'tag lead'}, t('leads')));
    if ((v.submitted || []).includes(s)) out.push(h('span', {class: 'tag chosen'}, t('has chosen')));
    return out;
  },
  cardClass(ctx, c) {
    const v = ctx.view;
    const {rank, suit} = splitCard(c);
    const own = v.suits && ctx.mySeat !== null ? v.suits[ctx.mySeat] : null;
    return suit === own || rankValue(rank) === v.trump ? 'useful' : '';
  },
  handNote(ctx) {
    return h('span', {class: 'muted note'}, ' · ', t('marked: your suit or the trump value (can win)'));
  },
  played(ctx) {
    const v = ctx.view;
    const n = v.players;
    const slots = {};
    const submitted = v.submitted || [];
    const choosing = v.phase === 'choose' && (submitted.length > 0 || v.choice);
    if (choosing) {
      for (let s = 0; s < n; s++) {
        const own = s === ctx.mySeat ? v.choice : (ctx.seatViews && ctx.seatViews[s] ? ctx.seatViews[s].choice : null);
        if (own) slots[s] = cardFace(own, {cls: 'played chosen'});
        else if (submitted.includes(s)) slots[s] = cardBack({title: t('has chosen')});
        else slots[s] = h('span', {class: 'card empty', title: t('still choosing')}, '…');
      }
      // The last trick's result stays in view while the next one is chosen (bots choose at once):
      // the board's line under the trick says it with its reason; this short one only stands in
      // where there is no line.
      const last = lastEvent(ctx, 'trick');
      return {slots, caption: [
        last && last.round === v.round && !eventLine(ctx, last)
          ? h('span', {class: 'last-result', 'data-last-trick': last.trick}, trickResult(ctx, last)) : null,
        h('span', {}, t('{k} of {n} have chosen; the cards are revealed together', {k: submitted.length, n}))]};
    }
    const last = ctx.game.lastTrick(ctx);
    if (!last || !last.current) {
      return {slots, caption: v.phase === 'lead' ? t('{name} changes the rules, then everyone chooses a card', {name: seatName(ctx, v.leader)}) : null};
    }
    for (const [s, c] of last.pairs) {
      slots[s] = cardFace(c, {cls: `played last ${s === last.winner ? 'winner' : ''} ${last.marks[s] || ''}`});
    }
    return {slots, caption: eventLine(ctx, last.event) ? null : trickResult(ctx, last.event)};
  },
  // The cards are shown together, so no card leads; a cancelled value and a card out of its
  // player's suit are marked from the trick's event.
  lastTrick(ctx) {
    const ev = lastEvent(ctx, 'trick');
    if (!ev) return null;
    const cancelled = new Set(ev.cancelled || []);
    const ineligible = new Set(ev.ineligible || []);
    const pairs = []; const marks = {};
    ev.cards.forEach((c, s) => {
      if (!c) return;
      pairs.push([s, c]);
      if (cancelled.has(rankValue(splitCard(c).rank))) marks[s] = 'cancelled';
      else if (ineligible.has(s)) marks[s] = 'ineligible';
    });
    return {event: ev, pairs, led: null, winner: ev.winner, marks, current: ev.round === ctx.view.round};
  },
  prompt(ctx) {
    const v = ctx.view;
    if (v.phase === 'lead') return t('You lead: change the rules in exactly one way (flip, rotate or roll).');
    if (v.phase === 'choose') return t('Choose a card in secret; all cards are revealed together.');
    return null;
  },
  actionLabel(ctx, a) {
    const v = ctx.view;
    if (a === 'flip') return t('Flip the card to {side}', {side: v.up ? t('DOWN') : t('UP')});
    if (a === 'roll') return t('Roll the dice');
    if (a.startsWith('rotate ')) return t('Rotate: {suit} faces you', {suit: suitName(a.slice(7))});
    return a;
  },
};
