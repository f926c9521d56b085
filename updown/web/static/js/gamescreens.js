// Per-game screens by game id; a game without one gets the generic screen (its view's fields).
import { h } from './vdom.js';
import { t } from './i18n.js';
import updown from './games/updown.js';
import euchre from './games/euchre.js';
import sueca from './games/updown-sueca.js';
import upOrDown from './games/up-or-down.js';
import { frenchCards } from './games/common.js';

const SCREENS = {[updown.id]: updown, [euchre.id]: euchre, [sueca.id]: sueca, [upOrDown.id]: upOrDown};

const generic = {
  id: 'generic',
  clockwise: true,
  handCards: (view) => view.hand || [],
  cardNode: (c) => h('span', {class: 'card plain'}, String(c)),
  cardLabel: (c) => String(c),
  cardAction: frenchCards.cardAction,
  info(ctx) {
    return Object.entries(ctx.view).filter(([k]) => !['log', 'hand'].includes(k))
      .map(([k, v]) => h('span', {class: 'chip'}, h('span', {class: 'chip-label'}, k), JSON.stringify(v)));
  },
  prompt: () => t('Your turn.'),
  actionLabel: (ctx, a) => a,
};

export function screenFor(gameId) { return SCREENS[gameId] || generic; }
