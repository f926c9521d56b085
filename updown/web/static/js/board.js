// The table drawn from one seat's view (or the spectator's): the rules in view, the seats around
// the trick, what to do now, the action buttons and the hand. Used live (table.js) and by the
// replay viewer (replay.js). Per-game screens live in games/*.js. Everything here is vnodes
// (vdom.js): the live table and the replay viewer patch their pages with them, frame after frame or
// step after step.
import { h } from './vdom.js';
import { t } from './i18n.js';
import { cardText } from './cards.js';
import { displayName, withNames } from './names.js';

const POSITIONS = {
  2: ['bottom', 'top'],
  3: ['bottom', 'left', 'right'],
  4: ['bottom', 'left', 'top', 'right'],
};

export function positionOf(ctx, s) {
  const n = ctx.view.players;
  const me = ctx.mySeat === null || ctx.mySeat === undefined ? 0 : ctx.mySeat;
  let r = (s - me + n) % n;
  if (ctx.game.clockwise === false && r) r = n - r;
  return (POSITIONS[n] || [])[r] || 'top';
}

export function seatName(ctx, s) {
  const pub = ctx.seats && ctx.seats[s];
  return displayName((pub && pub.name) || (ctx.names && ctx.names[s])) || t('Seat {n}', {n: s + 1});
}

export function legalMap(ctx) {
  if (!ctx._legal) ctx._legal = new Map((ctx.legal || []).map((a) => [a.notation, a.id]));
  return ctx._legal;
}

export function canPlay(ctx, notation) {
  return !!ctx.act && ctx.canAct && legalMap(ctx).has(notation);
}

// A button that plays one legal action. When it cannot be played now it is greyed but still
// focusable (aria-disabled), and says why in its title: the page is waiting for the server.
export function actionButton(ctx, notation, content, extra = {}) {
  const ok = canPlay(ctx, notation);
  const why = ok ? null : (ctx.waitWhy || t('cannot be played now'));
  return h('button', {
    type: 'button', class: `act ${ok ? 'legal' : 'illegal'} ${extra.cls || ''} ${hintClass(ctx, notation)}`, 'aria-disabled': ok ? null : 'true',
    'data-action': ok ? notation : null, 'data-key': extra.key || `a:${notation}`,
    title: why ? (extra.title ? `${extra.title}: ${why}` : why) : (extra.title || null),
    'aria-label': extra.label ? (why ? `${extra.label} (${why})` : extra.label) : null,
    onclick: ok ? () => ctx.act(notation) : null, style: extra.style || null,
  }, content);
}

// The coach's best action is ringed once a hint came (ctx.hints: notation -> {estimate, best}).
export function hintClass(ctx, notation) {
  const x = ctx.hints && notation ? ctx.hints.get(notation) : null;
  return x && x.best ? 'hint-best' : '';
}

// Why a hand card is greyed: a legal card only waits for the server; any other has the server's
// reason for this seat (the terminal's words, in the player's language), else only "cannot be
// played now".
export function cardWhy(ctx, card, action) {
  if (action && ctx.waitWhy) return ctx.waitWhy;
  return (ctx.why && ctx.why[String(card)]) || ctx.waitWhy || t('cannot be played now');
}

// An action in words: a card as "Q♥", a discard as "discard Q♥", else the game's own label.
export function actionText(ctx, notation) {
  const card = /^(10|[2-9JQKA])[CDHS]$/;
  if (card.test(notation) && ctx.game.cardLabel && ctx.game.id !== 'up-or-down') return cardText(notation);
  const m = /^discard ((?:10|[2-9JQKA])[CDHS])$/.exec(notation);
  if (m) return t('discard {card}', {card: cardText(m[1])});
  if (ctx.review && notation === 'flip') return t('Flip the card'); // the end's view says nothing of which way
  return ctx.game.actionLabel ? ctx.game.actionLabel(ctx, notation) : notation;
}

function sentence(s) { return s ? s.charAt(0).toUpperCase() + s.slice(1) : s; }

export function lastEvent(ctx, type, pred) {
  const log = ctx.log || [];
  for (let i = log.length - 1; i >= 0; i--) {
    if (log[i].type === type && (!pred || pred(log[i]))) return log[i];
  }
  return null;
}

export function seatBox(ctx, s) {
  const v = ctx.view;
  const pub = (ctx.seats && ctx.seats[s]) || {};
  const you = s === ctx.mySeat;
  const toAct = (v.to_act || []).includes(s);
  const status = [];
  if (pub.kind === 'bot') status.push(h('span', {class: 'tag bot'}, t('bot')));
  else if (pub.kind === 'person') {
    status.push(h('span', {class: 'tag person'}, t('person')));
    if (pub.connected !== undefined) {
      status.push(h('span', {class: `dot ${pub.connected ? 'on' : 'off'}`,
                              title: pub.connected ? t('connected') : t('not connected')},
        pub.connected ? t('online') : t('offline')));
    }
  } else if (pub.kind === 'open') status.push(h('span', {class: 'tag open'}, t('open seat')));
  if (pub.left) status.push(h('span', {class: 'tag warn'}, t('left: a bot plays')));
  else if (pub.away) status.push(h('span', {class: 'tag warn'}, t('away: a bot plays')));
  const sizes = v.hand_sizes || [];
  const clock = ctx.clock && ctx.clock[s] !== undefined ? h('span', {class: 'clock', 'data-seat': s},
    formatClock(ctx.clock[s])) : null;
  const chips = ctx.game.seatChips ? ctx.game.seatChips(ctx, s) : [];
  let hand = null;
  if (ctx.seatViews && ctx.seatViews[s] && ctx.game.handCards) {
    const sv = {...v, ...ctx.seatViews[s]};
    const cards = ctx.game.handCards(sv) || [];
    hand = h('div', {class: 'mini-hand', 'data-seat-hand': s}, cards.map((c) => ctx.game.cardNode(c, {cls: 'small'})));
  }
  return h('div', {class: `seat ${you ? 'you' : ''} ${toAct ? 'to-act' : ''}`, 'data-seat': s},
    h('div', {class: 'seat-name'}, h('strong', {title: seatName(ctx, s)}, seatName(ctx, s)), you ? h('span', {class: 'you-tag'}, t('you')) : null),
    h('div', {class: 'seat-status'}, status),
    h('div', {class: 'seat-info'},
      sizes[s] !== undefined ? h('span', {class: 'cards-left'}, sizes[s] === 1 ? t('1 card') : t('{n} cards', {n: sizes[s]})) : null,
      toAct ? h('span', {class: 'tag act-now'}, t('to play')) : null, clock, chips),
    hand);
}

export function formatClock(secs) {
  const s = Math.max(0, Math.ceil(secs));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

// The server's line for one event of ctx.log (ctx.lines runs beside it: the terminal's words in
// the page's language), with the bots named in the page's language; null without lines.
export function eventLine(ctx, ev) {
  if (!ev || !ctx.lines) return null;
  const i = (ctx.log || []).lastIndexOf(ev);
  const line = i >= 0 ? ctx.lines[i] : null;
  return line ? withNames(line, ctx.names) : null;
}

// A card on the table with its player's name under it, and the "led" mark on the card that led.
function trickCard(ctx, s, node, led) {
  const name = seatName(ctx, s);
  // A long name wraps under the card, inside a word if it must (app.css), never cut; it is in its title too.
  return [node, h('span', {class: 'slot-name', title: name}, name),
    s === led ? h('span', {class: 'led-mark', title: t('This card led the trick')}, t('led')) : null];
}

// The "last trick" view stays open (or closed) while the table is drawn again.
let lastTrickOpen = false;

// Why the last trick was won, in the terminal's words, and the button that shows the last finished
// trick (who played what, who led, who won): it outlives the end of a deal.
function lastTrickParts(ctx) {
  const last = ctx.game.lastTrick ? ctx.game.lastTrick(ctx) : null;
  if (!last) return [];
  const line = eventLine(ctx, last.event);
  // The felt's line is left out while the view (which says the same) is open.
  const why = last.current && line ? h('p', {class: 'trick-why', 'data-trick-why': last.event.trick, hidden: lastTrickOpen}, line) : null;
  const view = h('div', {class: 'last-trick', id: 'last-trick-view', 'data-last-trick-view': last.event.trick, hidden: !lastTrickOpen},
    h('div', {class: 'last-cards'}, last.pairs.map(([s, c]) => h('div', {class: 'lt-slot'},
      trickCard(ctx, s, ctx.game.cardNode(c, {cls: `small ${s === last.winner ? 'winner' : ''} ${(last.marks && last.marks[s]) || ''}`}), last.led)))),
    h('p', {class: 'lt-result'}, last.winner === null || last.winner === undefined ? t('Nobody wins it')
      : t('{name} wins', {name: seatName(ctx, last.winner)})),
    line ? h('p', {class: 'lt-why'}, line) : null);
  // The view is shown and hidden on the element at once (the replay viewer is not drawn again on a
  // click); the next frame draws it as lastTrickOpen says, which is the same.
  const button = h('button', {type: 'button', class: 'last-toggle', 'aria-expanded': lastTrickOpen ? 'true' : 'false',
    'aria-controls': 'last-trick-view', 'data-last-toggle': '', 'data-key': 'last-trick',
    onclick: (/** @type {MouseEvent} */ ev) => {
      lastTrickOpen = !lastTrickOpen;
      const notes = /** @type {HTMLElement} */ (ev.currentTarget).closest('.trick-notes');
      const shown = notes && notes.querySelector('[data-last-trick-view]');
      const said = notes && notes.querySelector('[data-trick-why]');
      if (shown instanceof HTMLElement) shown.hidden = !lastTrickOpen;
      if (said instanceof HTMLElement) said.hidden = lastTrickOpen;
      /** @type {HTMLElement} */ (ev.currentTarget).setAttribute('aria-expanded', lastTrickOpen ? 'true' : 'false');
    }}, t('Last trick'));
  return [why, h('div', {class: 'last-trick-wrap'}, button, view)];
}

function feltAround(ctx) {
  const n = ctx.view.players;
  const played = ctx.game.played ? ctx.game.played(ctx) : {slots: {}, caption: null};
  const seats = [];
  const slots = [];
  for (let s = 0; s < n; s++) {
    const pos = positionOf(ctx, s);
    seats.push(h('div', {class: `pos pos-${pos}`}, seatBox(ctx, s)));
    const node = played.slots[s];
    slots.push(h('div', {class: `slot slot-${pos} ${node ? 'full' : ''}`, 'data-slot': s},
      node ? trickCard(ctx, s, node, played.led) : null));
  }
  return h('div', {class: `felt around n${n}`}, seats,
    h('div', {class: 'center'},
      h('div', {class: 'trick', 'data-trick-area': ''}, slots),
      played.caption ? h('div', {class: 'caption'}, played.caption) : null,
      h('div', {class: 'trick-notes'}, lastTrickParts(ctx))));
}

// The whole table for one view, as a vnode (the live table and the replay viewer patch their pages
// with it). ctx: {game, view, log, mySeat, seats, names, legal, canAct, act, clock, seatViews}
export function boardView(ctx) {
  const g = ctx.game;
  const parts = [];
  parts.push(h('section', {class: 'rulesbar', 'aria-label': t('Current rules')}, g.info(ctx)));
  parts.push(g.board ? g.board(ctx) : feltAround(ctx));
  const mine = ctx.mySeat !== null && ctx.mySeat !== undefined && ctx.view.hand !== undefined;
  const used = new Set();
  let handRow = null;
  if (mine) {
    const cards = g.handCards(ctx.view) || [];
    // Greyed cards stay focusable and say why: in their title (hover), in their label (screen
    // readers) and in the hint under the hand while one is hovered, focused or pressed. When every
    // greyed card has the same reason, the hint shows it from the start.
    const reasons = [];
    let common = '';
    const items = cards.map((c) => {
      const action = g.cardAction(ctx, c);
      if (action) used.add(action);
      const ok = action && canPlay(ctx, action);
      const label = g.cardLabel ? g.cardLabel(c) : String(c);
      // The name begins with what the card shows ("Q♦ queen of diamonds"), so that speech input
      // and screen readers agree with the eye.
      const named = g.cardShort ? `${g.cardShort(c)} ${label}` : label;
      const why = ok ? null : cardWhy(ctx, c, action);
      if (why) reasons.push(why);
      const show = why ? (/** @type {Event} */ ev) => showHint(ev, `${label}: ${why}`, true) : null;
      return h('button', {
        type: 'button', class: `hand-card ${ok ? 'legal' : 'illegal'} ${g.cardClass ? g.cardClass(ctx, c) : ''} ${hintClass(ctx, action)}`,
        'aria-disabled': ok ? null : 'true', 'data-action': ok ? action : null, 'data-card': c, 'data-key': `c:${c}`,
        'data-why': why, title: why ? `${label}: ${why}` : null,
        'aria-label': named + (ok ? '' : ` (${t('cannot be played now')}: ${why})`),
        onclick: ok ? () => ctx.act(action) : show,
        onmouseenter: show, onfocus: show, onpointerdown: show,
        onmouseleave: why ? (/** @type {Event} */ ev) => showHint(ev, common, false) : null,
        onblur: why ? (/** @type {Event} */ ev) => showHint(ev, common, false) : null,
        oncontextmenu: why ? (e) => e.preventDefault() : null, // a long press shows the reason, not a menu
      }, g.cardNode(c));
    });
    common = new Set(reasons).size === 1 ? sentence(reasons[0]) : '';
    const hint = h('p', {class: 'why-hint', 'data-why-hint': ''}, common);
    handRow = h('section', {class: 'hand-wrap', 'aria-label': t('Your hand')},
      h('div', {class: 'hand-title'}, t('Your hand'), g.handNote ? g.handNote(ctx) : null),
      h('div', {class: 'hand', role: 'group', onkeydown: handKeys}, items.length ? items : h('span', {class: 'muted'}, t('no cards'))),
      reasons.length ? hint : null);
  }
  if (g.boardActions) for (const a of g.boardActions(ctx)) used.add(a);
  const prompt = ctx.prompt !== undefined ? ctx.prompt : (ctx.canAct && ctx.legal && ctx.legal.length && g.prompt ? g.prompt(ctx) : null);
  if (prompt) parts.push(h('div', {class: 'prompt', role: 'status'}, prompt));
  if (ctx.coach) parts.push(ctx.coach);
  if (ctx.act && ctx.legal && ctx.legal.length) {
    const rest = ctx.legal.filter((a) => !used.has(a.notation) || (g.alsoButton && g.alsoButton(a.notation)));
    if (rest.length) {
      parts.push(h('div', {class: 'actions', role: 'group', 'aria-label': t('Actions')},
        rest.map((a) => actionButton(ctx, a.notation, g.actionLabel(ctx, a.notation)))));
    }
  }
  if (handRow) parts.push(handRow);
  return h('div', {class: `board game-${g.id}`}, parts);
}

// The hint under the hand says why the card under the pointer (or focused, or pressed) is greyed,
// else what every greyed card has in common. Set on the element: the next frame draws the common
// reason again only when it changed (until then the card's own stays while the pointer is there).
function showHint(ev, text, onCard) {
  const wrap = /** @type {HTMLElement} */ (ev.currentTarget).closest('.hand-wrap');
  const hint = wrap && wrap.querySelector('[data-why-hint]');
  if (!hint) return;
  hint.textContent = text;
  hint.classList.toggle('on-card', onCard);
}

// Arrow keys move between the cards of the hand; Enter or Space plays the focused one.
function handKeys(ev) {
  if (!['ArrowLeft', 'ArrowRight', 'Home', 'End'].includes(ev.key)) return;
  const cards = [...ev.currentTarget.querySelectorAll('button.hand-card.legal')];
  const i = cards.indexOf(document.activeElement);
  let j = i;
  if (ev.key === 'ArrowLeft') j = i <= 0 ? cards.length - 1 : i - 1;
  else if (ev.key === 'ArrowRight') j = (i + 1) % cards.length;
  else if (ev.key === 'Home') j = 0;
  else if (ev.key === 'End') j = cards.length - 1;
  if (cards[j]) { ev.preventDefault(); cards[j].focus(); }
}
