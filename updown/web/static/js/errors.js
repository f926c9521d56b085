// The server's errors in the page's language. Every error the server sends has a stable `code`
// (and `params`, the figures in it): HTTP answers {detail, code, params}, socket errors {code,
// message, params}; updown/server/errors.py and docs/server.md list them. Each code has its
// sentence here (msgids of the web catalogue); a code this page does not know shows the server's
// English.
import { t } from './i18n.js';
import { optionName } from './names.js';

const LIMITS = {
  'login-address': (p) => t('Too many sign-in attempts from your address; try again in {seconds} s.', p),
  'login-name': (p) => t('Too many sign-in attempts for this name; try again in {seconds} s.', p),
  accounts: (p) => t('Too many new accounts and guests from your address; try again in {seconds} s.', p),
  tables: (p) => t('Too many new tables; try again in {seconds} s.', p),
  hints: (p) => t('Too many hints; try again in {seconds} s.', p),
  'hint-budget': (p) => t('The coach’s budget is spent; try again in {seconds} s.', p),
  'sign-ins-at-once': (p) => t('Too many sign-ins at once; try again in {seconds} s.', p),
  'bot-tables': (p) => t('You have {n} tables of bots alone running; wait for one to end.', p),
  chat: (p) => t('Too many chat lines; wait {seconds} s.', p),
  socket: (p) => t('Too many messages; wait {seconds} s.', p),
};

const FIELDS = {name: () => t('Name'), password: () => t('Password')};

const MESSAGES = {
  // accounts
  'sign-in': () => t('Sign in or play as a guest first.'),
  'wrong-credentials': () => t('Wrong name or password.'),
  'account-disabled': () => t('This account is disabled; ask the site’s host.'),
  'name-rule': () => t('A name has 2 to 24 letters, digits, spaces, “.”, “_” or “-”, and starts with a letter or digit.'),
  'name-reserved': (p) => t('The name {name} is kept for the site.', p),
  'password-short': () => t('A password has at least 8 characters.'),
  'name-taken': (p) => t('The name {name} is taken.', p),
  'guest-name': () => t('Could not make a guest name; try again.'),
  // tables
  'no-table': () => t('No such table.'),
  'no-seat': () => t('You have no seat at this table.'),
  'no-game': () => t('No such game.'),
  players: (p) => t('{game} is for {range} players, not {players}.', p),
  'option-range': (p) => t('{option}: from {low} to {high}, not {value}.', {...p, option: optionName(p.option)}),
  'option-choice': (p) => t('{option}: choose one of the values offered.', {option: optionName(p.option)}),
  'option-unknown': (p) => t('Unknown option: {option}.', p),
  'option-missing': (p) => t('{option} needs a value.', {option: optionName(p.option)}),
  'option-type': (p) => t('{option}: this value is of the wrong kind.', {option: optionName(p.option)}),
  options: () => t('These options are not valid.'),
  timer: () => t('The move timer is 5 to 3600 seconds, or none.'),
  grace: () => t('The grace period is 0 to 3600 seconds.'),
  'guest-rated': () => t('Guests play unrated tables only; register to play rated.'),
  'seat-count': (p) => t('Give {players} seats, not {seats}.', p),
  'rated-needs-person': () => t('A rated table needs a seat for a person: bots alone are not rated.'),
  'one-seat': () => t('You can take one seat.'),
  'seat-spec': (p) => t('Seat {n}: choose you, open or a bot.', {n: (+p.seat || 0) + 1}),
  started: () => t('The game has started; watch it instead.'),
  'rated-register': () => t('This table is rated: register to play it.'),
  'already-seated': () => t('You already have a seat at this table.'),
  'seat-kept': () => t('That seat is kept for another player.'),
  'seat-taken': () => t('That seat is taken.'),
  'seats-full': () => t('Every seat is taken.'),
  'not-running': () => t('The game is not running.'),
  'already-left': () => t('You have already left this game.'),
  // the coach, the review, the rematch
  'hint-rated': () => t('Hints are for unrated tables only.'),
  'hint-seat': () => t('Only a seated player gets hints, for their own seat.'),
  'hint-budget-range': () => t('The budget is 50 to 2000 playouts.'),
  'not-your-turn': () => t('It is not your turn.'),
  'left-seat': () => t('You left the seat.'),
  'request-closed': () => t('The request was closed.'),
  'review-rated': () => t('Reviews are for unrated tables only.'),
  'review-player': () => t('Only a player who stayed to the end gets a review, of their own seat.'),
  'review-not-over': () => t('The review comes when the game is over.'),
  'rematch-not-over': () => t('A rematch comes when the game is over.'),
  'rematch-player': () => t('Only the players of this game can ask for a rematch.'),
  'rematch-failed': () => t('The rematch could not be made; try again.'),
  'rematch-started': () => t('The rematch has started without you; watch it instead.'),
  'rematch-full': () => t('Every seat of the rematch is taken.'),
  'no-rules': () => t('No rules text for this game.'),
  'no-language': () => t('No such language.'),
  // the replay viewer
  'record-too-large': () => t('A record may have at most 2 MB.'),
  'record-not-json': () => t('This file is not JSON: open a game record (.json).'),
  'record-spectator': () => t('This is a running game seen by a spectator: it can be replayed once it is over.'),
  'record-steps': (p) => t('A record may have at most {max} steps, this one has {steps}.', p),
  'record-invalid': () => t('This is not a game record.'),
  'record-replay': () => t('The record does not replay: a step is not legal where it stands.'),
  // guards and the framework
  'too-large': () => t('This is too large for the server.'),
  'cross-origin': () => t('Refused: the request came from another site.'),
  'not-found': () => t('Not found.'),
  method: () => t('Not allowed.'),
  invalid: (p) => t('Not valid: {fields}.', {fields: (p.fields || []).map((f) => (FIELDS[f] ? FIELDS[f]() : f)).join(', ')}),
  // the table's socket
  malformed: () => t('The server could not read this message.'),
  // the lobby's socket: a message of a kind it does not take (the table's socket says malformed)
  'unknown-type': () => t('The server could not read this message.'),
  'too-many-sockets': () => t('Too many connections from your address; try again later.'),
  notation: () => t('That is not a move of this game.'),
  illegal: () => t('That move is not allowed now.'),
  'not-your-seat': () => t('This seat is no longer yours.'),
  spectator: () => t('Spectators cannot play.'),
  over: () => t('The game is over.'),
  'not-started': () => t('The game has not started.'),
  busy: () => t('The server is busy; try again in a moment.'),
  unbalanced: () => t('The server could not settle this step; nothing was stored.'),
  'not-stored': () => t('The move could not be stored; send it again.'),
  closed: () => t('This table is closed.'),
  // chat
  'chat-sign-in': () => t('Sign in or play as a guest to chat.'),
  'chat-empty': () => t('Write something first.'),
  'chat-too-long': (p) => t('A chat line has at most {max} characters.', p),
  'chat-preset': () => t('There is no such phrase.'),
  'chat-presets-only': () => t('During a rated game the chat takes only the phrases.'),
  'rate-limited': (p) => {
    const seconds = Math.max(1, Math.ceil(+p.retry_after || 1));
    const f = LIMITS[p.what];
    return f ? f({...p, seconds, n: p.at_once}) : t('Too many requests; try again in {seconds} s.', {seconds});
  },
};

// The codes this page can say (the tests compare them with the server's).
export const CODES = Object.keys(MESSAGES);

// An error in the page's language: by its code, else the server's English.
export function errorText(code, params, english) {
  const f = code && MESSAGES[code];
  if (f) {
    try { return f(params || {}); } catch (e) { /* the English, below */ }
  }
  return english || t('Something went wrong.');
}

// What a caught error says (api() throws an ApiError whose message is already in the page's
// language; anything else thrown is said as it is).
/** @param {unknown} e */
export function messageOf(e) {
  return e instanceof Error ? e.message : String(e);
}
