// Names the server gives in English that a page shows in its own language: the bots' (a table's
// "Greedy bot 1", a leaderboard's "bot:greedy"), and the games' option names.
import { t } from './i18n.js';

// The bots' levels as adjectives ("bot: greedy" in the lobby's seat choice).
export function botLevel(name) {
  return {random: t('random'), easy: t('easy'), greedy: t('greedy'), normal: t('normal'), hard: t('hard'),
    pimc: t('pimc')}[name] || name;
}

// A bot's seat: the server names it "<Level> bot <n>" (tables.py), in English.
function botSeat(level, n) {
  const f = {random: () => t('Random bot {n}', {n}), easy: () => t('Easy bot {n}', {n}),
    greedy: () => t('Greedy bot {n}', {n}), normal: () => t('Normal bot {n}', {n}), hard: () => t('Hard bot {n}', {n}),
    pimc: () => t('PIMC bot {n}', {n})}[level];
  return f ? f() : null;
}

// A bot's account (the leaderboard's "bot:greedy").
export function botAccount(level) {
  return {random: t('Random bot'), easy: t('Easy bot'), greedy: t('Greedy bot'), normal: t('Normal bot'),
    hard: t('Hard bot'), pimc: t('PIMC bot')}[level] || level;
}

const BOT_SEAT = /^(Random|Easy|Greedy|Normal|Hard|Pimc) bot (\d+)$/;

// What to show for a seat's or player's name: a bot's in the page's language, anyone else's as it is
// (nobody may register a name of that shape).
export function displayName(name) {
  if (typeof name !== 'string') return name;
  const m = BOT_SEAT.exec(name);
  if (m) return botSeat(m[1].toLowerCase(), m[2]) || name;
  if (name.startsWith('bot:')) return botAccount(name.slice(4));
  return name;
}

// A line the server wrote with the seats' English names (the event lines), with the bots' names
// in the page's language.
export function withNames(line, names) {
  let out = line;
  for (const name of names || []) {
    const shown = displayName(name);
    if (shown !== name && typeof out === 'string') out = out.split(name).join(shown);
  }
  return out;
}

export function optionName(name) {
  return {rounds: t('Rounds'), tiebreak_rounds: t('Tie-break rounds'), stick_the_dealer: t('Stick the dealer'),
    lone_defender: t('Lone defender'), target: t('Points to win'), deals: t('Deals'), regional: t('Regional variant'),
    exchange_limit: t('Exchange limit'), length: t('Length')}[name] || name;
}
