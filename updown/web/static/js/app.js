// The site: header with the language switch on every page, and a small router.
import { h, mount } from './dom.js';
import { h as v, patch } from './vdom.js';
import { LANGS, lang, preferredLang, setLang, t } from './i18n.js';
import { api, forgetMe, games, me } from './api.js';
import { TableClient, statusText } from './table.js';
import { replayPage } from './replay.js';
import { showRules } from './rules.js';
import { botLevel, displayName, optionName } from './names.js';

/** @type {any} */ // the page's cleanup, with the table client (table) and relang for a live table
let cleanup = null;

export function go(path) { history.pushState({}, '', path); route(); }

document.addEventListener('click', (e) => {
  const a = /** @type {any} */ (e.target).closest && /** @type {any} */ (e.target).closest('a[data-link]'); // a text node has no closest
  if (a && a.origin === location.origin && !e.ctrlKey && !e.metaKey && !e.shiftKey && e.button === 0) {
    e.preventDefault(); go(a.pathname + a.search + a.hash);
  }
});
window.addEventListener('popstate', () => route());

async function header() {
  const acc = await me();
  const nav = [
    h('a', {href: '/', 'data-link': ''}, t('Lobby')),
    h('a', {href: '/leaderboard', 'data-link': ''}, t('Leaderboard')),
    h('a', {href: '/replay', 'data-link': ''}, t('Replays')),
    acc ? h('a', {href: '/account', 'data-link': ''}, t('Account')) : h('a', {href: '/signin', 'data-link': ''}, t('Sign in')),
  ];
  const select = h('select', {id: 'lang', 'aria-label': t('Language'), onchange: async (e) => {
    await setLang(e.target.value);
    if (cleanup && cleanup.relang) cleanup.relang();
    route(true);
  }}, LANGS.map(([code, name]) => h('option', {value: code, selected: code === lang}, name)));
  mount(document.getElementById('top'),
    h('div', {class: 'bar'},
      h('a', {class: 'brand', href: '/', 'data-link': ''}, h('span', {class: 'logo'}, '▲▼'), ' updown'),
      h('nav', {}, nav),
      h('div', {class: 'who'}, acc ? h('span', {class: 'me-name', title: acc.kind === 'guest' ? t('guest') : ''}, acc.name) : null,
        h('label', {class: 'lang'}, h('span', {class: 'sr'}, t('Language')), select))));
}

async function route(keepTable = false) {
  const path = location.pathname;
  const root = document.getElementById('app');
  const tableMatch = /^\/t\/([A-Za-z0-9_-]+)$/.exec(path);
  if (keepTable && tableMatch && cleanup && cleanup.table) {
    await header(); cleanup.table.render(); return;
  }
  if (cleanup) { cleanup(); cleanup = null; }
  await header();
  document.title = 'updown';
  if (tableMatch) {
    const watch = new URLSearchParams(location.search).get('watch') === '1';
    const tc = new TableClient(root, tableMatch[1], {watch});
    cleanup = () => tc.stop();
    cleanup.table = tc;
    cleanup.relang = () => tc.reconnect(true); // event lines come again in the new language
    await tc.start();
  } else if (path === '/signin') await signinPage(root);
  else if (path === '/account') await accountPage(root);
  else if (path.startsWith('/leaderboard')) await leaderboardPage(root, decodeURIComponent(path.split('/')[2] || ''));
  else if (path === '/replay') cleanup = await replayPage(root);
  else await lobbyPage(root);
}

// -- sign in ---------------------------------------------------------------------------------------
async function signinPage(root) {
  const next = new URLSearchParams(location.search).get('next') || '/';
  const safeNext = next.startsWith('/') && !next.startsWith('//') ? next : '/';
  const msg = h('p', {class: 'form-error', role: 'alert'});
  const submit = (path, form) => async (e) => {
    e.preventDefault();
    const data = Object.fromEntries(new FormData(form));
    try {
      await api('POST', path, data);
      forgetMe();
      go(safeNext);
    } catch (/** @type {any} */ err) { msg.textContent = err.message; }
  };
  const signIn = h('form', {class: 'panel', id: 'signin-form'}, h('h2', {}, t('Sign in')),
    h('label', {}, t('Name'), h('input', {name: 'name', autocomplete: 'username', required: true})),
    h('label', {}, t('Password'), h('input', {name: 'password', type: 'password', autocomplete: 'current-password', required: true})),
    h('button', {type: 'submit'}, t('Sign in')));
  signIn.addEventListener('submit', submit('/api/login', signIn));
  const register = h('form', {class: 'panel', id: 'register-form'}, h('h2', {}, t('Register')),
    h('label', {}, t('Name'), h('input', {name: 'name', autocomplete: 'username', required: true, minlength: 2, maxlength: 24})),
    h('label', {}, t('Password (at least 8 characters)'), h('input', {name: 'password', type: 'password', autocomplete: 'new-password', required: true, minlength: 8})),
    h('button', {type: 'submit'}, t('Register')));
  register.addEventListener('submit', submit('/api/register', register));
  const guest = h('form', {class: 'panel', id: 'guest-form'}, h('h2', {}, t('Play as a guest')),
    h('p', {class: 'muted'}, t('Guests play unrated tables: no RISCOS, no rating.')),
    h('label', {}, t('Name (optional)'), h('input', {name: 'name', maxlength: 24})),
    h('button', {type: 'submit'}, t('Play as a guest')));
  guest.addEventListener('submit', (e) => {
    e.preventDefault();
    const name = new FormData(guest).get('name');
    api('POST', '/api/guest', name ? {name} : {}).then(() => { forgetMe(); go(safeNext); }, (err) => { msg.textContent = err.message; });
  });
  const acc = await me();
  mount(root, h('div', {class: 'page'}, h('h1', {}, t('Welcome to updown')),
    acc ? h('p', {}, t('You are signed in as {name}.', {name: acc.name}), ' ',
      h('button', {type: 'button', class: 'secondary', onclick: async () => { await api('POST', '/api/logout'); forgetMe(); route(); }}, t('Sign out'))) : null,
    msg, h('div', {class: 'cols3'}, signIn, register, guest)));
}

// -- lobby -----------------------------------------------------------------------------------------
// The four games in a few words, for the front page (the names are the games' own).
function gameBlurb(id) {
  return {
    updown: t('Before every trick the leader changes one rule (UP or DOWN, the suits, or the trump dice), then everyone picks a card in secret.'),
    euchre: t('The classic partnership trick game: name trump, mind the bowers, take three of five tricks. First team to 10 wins.'),
    'updown-sueca': t('The Portuguese race, each for themselves: take tricks to bring your score from 20 down to 0, or sit a deal out.'),
    'up-or-down': t('Play a card into the ring, take a neighbour and build rising or falling columns: the more of one colour, the better.'),
  }[id] || '';
}

// The bot a newcomer meets: the game's middle level.
function defaultBot(g) {
  for (const name of ['normal', 'greedy']) if (g.bots.includes(name)) return name;
  return g.bots[0];
}

// One click into a game: you and bots, the game's usual options, unrated. A visitor who is not
// signed in plays as a guest.
async function playNow(g, msg) {
  try {
    if (!(await me())) { await api('POST', '/api/guest', {}); forgetMe(); await header(); }
    const seats = ['me', ...Array.from({length: g.default_players - 1}, () => `bot:${defaultBot(g)}`)];
    const tb = await api('POST', '/api/tables', {game: g.id, players: g.default_players, seats, options: {}});
    go(`/t/${tb.id}`);
  } catch (/** @type {any} */ err) { msg.textContent = err.message; }
}

function playNowPanel(catalogue, acc) {
  const msg = h('p', {class: 'form-error', role: 'alert'});
  return h('section', {class: 'panel play-now', 'aria-labelledby': 'play-now-title'},
    h('h2', {id: 'play-now-title'}, acc ? t('Play now against bots') : t('Four card games, one table')),
    acc ? null : h('p', {class: 'lead'}, t('Play in your browser against bots or with friends. Nothing to install, no sign-up needed: you play as a guest.')),
    h('ul', {class: 'game-cards'}, catalogue.map((g) => h('li', {class: 'game-card', 'data-game': g.id},
      h('h3', {}, g.name), h('p', {}, gameBlurb(g.id)),
      h('button', {type: 'button', 'data-play-now': g.id, onclick: () => playNow(g, msg)}, t('Play {game} against bots', {game: g.name}))))),
    msg,
    acc ? null : h('p', {class: 'muted'}, t('Have an account?'), ' ', h('a', {href: '/signin', 'data-link': ''}, t('Sign in or register')),
      ' ', t('to play rated tables, with ratings and RISCOS.')));
}

// Your own open and running games, with Resume; a rematch you are invited to, with Join.
function yourGames(acc, names) {
  const mine = (acc.tables || []).filter((tb) => (tb.status === 'running' || tb.status === 'open') &&
    tb.seats.some((s) => s.name === acc.name && ((s.kind === 'person' && !s.left) || (s.kind === 'open' && s.reserved))));
  if (!mine.length) return null;
  return h('section', {class: 'panel your-games', 'aria-labelledby': 'your-games-title'},
    h('h2', {id: 'your-games-title'}, t('Your games')),
    h('table', {class: 'grid stack'}, h('tbody', {}, mine.map((tb) => {
      const seated = tb.seats.some((s) => s.kind === 'person' && s.name === acc.name);
      const label = tb.status === 'running' ? t('Resume') : seated ? t('Open') : t('Join');
      return h('tr', {'data-table': tb.id},
        h('td', {class: 'cell-game'}, names[tb.game] || tb.game, tb.rated ? h('span', {class: 'tag'}, t('rated')) : null),
        h('td', {class: 'cell-status'}, !seated ? t('you are invited') : statusText(tb.status)),
        h('td', {class: 'cell-seats'}, tb.seats.map((s) => s.kind === 'open' ? (s.name || t('open')) : displayName(s.name)).join(', ')),
        h('td', {class: 'buttons'}, h('a', {class: 'button', href: `/t/${tb.id}`, 'data-link': '', 'data-resume': tb.id}, label)));
    }))));
}

// The lobby's list from the lobby's WebSocket (docs/server.md, "The lobby's WebSocket"): every list
// comes when a table changes, none is asked for. While the socket is away the page tries it again
// with backoff and reads GET /api/tables every 20 s meanwhile. Returns the function that stops it.
const LOBBY_POLL = 20000;
function lobbyFeed(onTables, onLive) {
  let ws = null; let stopped = false; let retry = null; let poll = null; let delay = 1000;
  const readOnce = async () => {
    // Not shown when the socket came back meanwhile (its list is newer).
    try { const tables = await api('GET', '/api/tables?status=open,running'); if (poll) onTables(tables); } catch (e) { /* kept as it was */ }
  };
  const startPoll = () => { if (!poll) { poll = setInterval(readOnce, LOBBY_POLL); readOnce(); } };
  const stopPoll = () => { if (poll) { clearInterval(poll); poll = null; } };
  const keepAlive = setInterval(() => { if (ws && ws.readyState === WebSocket.OPEN) ws.send('{"type":"ping"}'); }, 25000);
  const connect = () => {
    retry = null;
    if (stopped) return;
    const sock = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws/lobby`);
    ws = sock;
    sock.onmessage = (ev) => {
      let msg = null;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      if (msg && msg.type === 'tables' && Array.isArray(msg.tables)) {
        delay = 1000; stopPoll(); onLive(true); onTables(msg.tables);
      }
    };
    sock.onclose = (ev) => {
      if (ws !== sock) return;
      ws = null;
      if (stopped) return;
      onLive(false); startPoll();
      // Too many lobby sockets from this address (4429): the slow poll for a minute.
      const wait = ev.code === 4429 ? 60000 : delay;
      delay = Math.min(30000, delay * 2);
      retry = setTimeout(connect, wait * (0.75 + Math.random() * 0.5));
    };
  };
  connect();
  return () => {
    stopped = true; stopPoll(); clearInterval(keepAlive);
    if (retry) clearTimeout(retry);
    if (ws) { const sock = ws; ws = null; sock.close(1000); }
  };
}

async function lobbyPage(root) {
  const acc = await me(true);
  const catalogue = await games();
  const names = Object.fromEntries(catalogue.map((g) => [g.id, g.name]));
  // The list is patched (vdom.js, snabbdom): each list changes only what differs from the last one,
  // rows keyed by table and buttons by kind, so the page does not jump and a focused Watch or Join
  // stays the same element, with the focus.
  // (Another element than the list's: the first patch replaces it, children and all.)
  /** @type {Element | import('./vdom.js').VNode} */ // an element until the first list patches it
  let shown = h('p', {class: 'muted'}, t('Loading…'));
  const list = h('div', {class: 'panel lobby-tables', 'data-live': '0'}, h('h2', {}, t('Tables')), shown);
  const seatedAt = (tb) => acc && tb.seats.some((s) => s.kind === 'person' && s.name === acc.name && !s.left);
  const row = (tb) => v('tr', {'data-key': tb.id, 'data-table': tb.id},
    v('td', {class: 'cell-game'}, names[tb.game] || tb.game, tb.rated ? v('span', {class: 'tag'}, t('rated')) : null),
    v('td', {class: 'cell-seats'}, tb.seats.map((s) => s.kind === 'open' ? (s.name ? t('kept for {name}', {name: s.name}) : t('open')) : displayName(s.name)).join(', ')),
    v('td', {class: 'cell-status'}, statusText(tb.status)),
    v('td', {class: 'buttons'},
      // Your own running game: Resume (not only Watch).
      tb.status === 'running' && seatedAt(tb) ? v('a', {class: 'button', 'data-key': 'resume', href: `/t/${tb.id}`, 'data-link': '', 'data-resume': tb.id}, t('Resume'))
        : [tb.status === 'open' && tb.seats.some((s) => s.kind === 'open' && (!s.name || (acc && s.name === acc.name)))
          ? v('a', {class: 'button', 'data-key': 'join', href: `/t/${tb.id}`, 'data-link': ''}, t('Join')) : null,
        v('a', {class: 'button secondary', 'data-key': 'watch', href: `/t/${tb.id}?watch=1`, 'data-link': ''}, t('Watch'))]));
  const show = (tables) => {
    const focused = document.activeElement;
    shown = patch(shown, v('div', {class: 'lobby-list'}, tables.length ? v('table', {class: 'grid tables stack'},
      v('thead', {}, v('tr', {}, v('th', {}, t('Game')), v('th', {}, t('Seats')), v('th', {}, t('Status')), v('th', {}, v('span', {class: 'sr'}, t('Actions'))))),
      v('tbody', {}, tables.map(row)))
      : v('p', {class: 'muted'}, t('No open tables. Create one!'))));
    if (focused instanceof HTMLElement && focused !== document.activeElement && focused.isConnected) focused.focus({preventScroll: true});
  };
  if (!acc) {
    // The front page for a visitor: what the four games are, and one click into one of them.
    mount(root, h('div', {class: 'page lobby front'}, h('h1', {}, t('Welcome to updown')), playNowPanel(catalogue, null), list));
  } else {
    mount(root, h('div', {class: 'page lobby'}, h('h1', {}, t('Lobby')), yourGames(acc, names), playNowPanel(catalogue, acc),
      h('div', {class: 'cols2'}, createForm(catalogue, acc), list)));
  }
  cleanup = lobbyFeed(show, (live) => { list.dataset.live = live ? '1' : '0'; });
}

function optionInput(opt, gameId) {
  const id = `opt-${opt.name}`;
  const help = t(opt.help);
  const label = (input) => h('label', {class: opt.type === 'bool' ? 'check' : ''}, opt.type === 'bool' ? [input, ' ', optionName(opt.name)] : [optionName(opt.name), input],
    h('small', {class: 'muted'}, help));
  if (opt.type === 'bool') return label(h('input', {type: 'checkbox', id, name: opt.name, checked: !!opt.default, 'data-type': 'bool'}));
  if (gameId === 'up-or-down' && opt.name === 'length') {
    return label(h('select', {id, name: opt.name, 'data-type': 'str'},
      ['short', 'full'].map((v) => h('option', {value: v, selected: v === opt.default}, v === 'short' ? t('short') : t('full')))));
  }
  const isInt = opt.type.startsWith('int');
  return label(h('input', {id, name: opt.name, type: isInt ? 'number' : 'text', 'data-type': opt.type,
    value: opt.default === null ? '' : String(opt.default), placeholder: opt.default === null ? t('default') : ''}));
}

function createForm(catalogue, acc) {
  const form = h('form', {class: 'panel create', id: 'create-form'});
  const msg = h('p', {class: 'form-error', role: 'alert'});
  const gameSel = h('select', {name: 'game', id: 'create-game'}, catalogue.map((g) => h('option', {value: g.id}, g.name)));
  const body = h('div');
  const draw = () => {
    const g = catalogue.find((x) => x.id === gameSel.value);
    const playersSel = h('select', {name: 'players', id: 'create-players', onchange: () => drawSeats()},
      Array.from({length: g.max_players - g.min_players + 1}, (_, i) => g.min_players + i)
        .map((n) => h('option', {value: n, selected: n === g.default_players}, String(n))));
    const seatsBox = h('div', {class: 'seats-choice'});
    const drawSeats = () => {
      const n = +playersSel.value;
      mount(seatsBox, Array.from({length: n}, (_, i) => h('label', {}, t('Seat {n}', {n: i + 1}),
        h('select', {name: `seat${i}`, 'data-seat': i},
          i === 0 ? h('option', {value: 'me'}, t('you')) : null,
          // Bots in every other seat by default: a table that starts at once, not a waiting room.
          h('option', {value: 'open'}, t('open (a person)')),
          g.bots.map((b) => h('option', {value: `bot:${b}`, selected: i > 0 && b === defaultBot(g)}, t('bot: {name}', {name: botLevel(b)})))))));
    };
    drawSeats();
    mount(body,
      h('label', {}, t('Players'), playersSel),
      h('fieldset', {}, h('legend', {}, t('Seats')), seatsBox),
      g.options.length ? h('fieldset', {}, h('legend', {}, t('Options')), g.options.map((o) => optionInput(o, g.id))) : null,
      h('label', {}, t('Move timer'), h('select', {name: 'timer', id: 'create-timer'},
        [['', t('none')], ['30', '30 s'], ['60', '1 min'], ['120', '2 min'], ['300', '5 min']].map(([v, l]) => h('option', {value: v}, l)))),
      h('label', {class: 'check'}, h('input', {type: 'checkbox', name: 'rated', disabled: acc.kind !== 'person'}), ' ', t('Rated (ratings and RISCOS count)')),
      acc.kind !== 'person' ? h('small', {class: 'muted'}, t('Guests play unrated tables only.')) : null,
      h('label', {class: 'check'}, h('input', {type: 'checkbox', name: 'private'}), ' ', t('Private (only people with the link)')),
      h('button', {type: 'button', class: 'secondary', onclick: () => showRules(g.id, g.name)}, t('Rules of {game}', {game: g.name})));
  };
  gameSel.addEventListener('change', draw);
  draw();
  form.append(h('h2', {}, t('New table')), h('label', {}, t('Game'), gameSel), body, msg, h('button', {type: 'submit', id: 'create-button'}, t('Create the table')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const g = catalogue.find((x) => x.id === gameSel.value);
    const players = +/** @type {HTMLInputElement} */ (form.querySelector('[name=players]')).value;
    const seats = [.../** @type {NodeListOf<HTMLSelectElement>} */ (form.querySelectorAll('[data-seat]'))].map((s) => s.value);
    if (seats[0] !== 'me' && !seats.includes('me')) seats[0] = 'me';
    const options = {};
    for (const o of g.options) {
      const el = /** @type {HTMLInputElement} */ (form.querySelector(`[name="${o.name}"]`)); // drawn for every option
      if (o.type === 'bool') options[o.name] = el.checked;
      else if (el.value === '') { if (o.default === null) options[o.name] = null; }
      else options[o.name] = o.type.startsWith('int') ? parseInt(el.value, 10) : el.value;
    }
    const timer = /** @type {HTMLInputElement} */ (form.querySelector('[name=timer]')).value;
    try {
      const tb = await api('POST', '/api/tables', {game: g.id, players, seats, options, timer: timer ? +timer : null,
        rated: /** @type {HTMLInputElement} */ (form.querySelector('[name=rated]')).checked,
        private: /** @type {HTMLInputElement} */ (form.querySelector('[name=private]')).checked});
      go(`/t/${tb.id}`);
    } catch (/** @type {any} */ err) { msg.textContent = err.message; }
  });
  return form;
}

// -- leaderboard and account -------------------------------------------------------------------------
async function leaderboardPage(root, gameId) {
  const catalogue = await games();
  const g = catalogue.find((x) => x.id === gameId) || catalogue[0];
  let rows = [];
  try { rows = await api('GET', `/api/leaderboard/${encodeURIComponent(g.id)}`); } catch (e) { rows = []; }
  mount(root, h('div', {class: 'page'}, h('h1', {}, t('Leaderboard')),
    h('nav', {class: 'tabs', 'aria-label': t('Game')}, catalogue.map((x) => h('a', {href: `/leaderboard/${x.id}`, 'data-link': '', class: x.id === g.id ? 'active' : ''}, x.name))),
    h('div', {class: 'panel'}, rows.length ? h('table', {class: 'grid'},
      h('thead', {}, h('tr', {}, h('th', {}, '#'), h('th', {}, t('Player')), h('th', {}, t('Rating')), h('th', {}, t('Games')))),
      h('tbody', {}, rows.map((r, i) => h('tr', {}, h('td', {}, String(i + 1)),
        h('td', {'data-player': r.name}, r.kind === 'bot' ? displayName(r.name) : r.name, r.kind === 'bot' ? h('span', {class: 'tag bot'}, t('bot')) : null),
        h('td', {class: 'num', title: `μ ${r.mu.toFixed(2)}, σ ${r.sigma.toFixed(2)}`}, r.ordinal.toFixed(2)),
        h('td', {class: 'num'}, String(r.games))))))
      : h('p', {class: 'muted'}, t('No rated games of {game} yet.', {game: g.name})),
      h('p', {class: 'muted'}, t('Rating: openskill μ − 3σ, from rated games.')))));
}

async function accountPage(root) {
  const acc = await me(true);
  if (!acc) { go('/signin?next=/account'); return; }
  const catalogue = await games();
  const names = Object.fromEntries(catalogue.map((g) => [g.id, g.name]));
  mount(root, h('div', {class: 'page'}, h('h1', {}, acc.name),
    h('div', {class: 'cols2'},
      h('div', {class: 'panel'}, h('h2', {}, t('Balance')),
        acc.kind === 'person' ? h('p', {class: 'big', 'data-balance': ''}, `${acc.balance} RISCOS`) : h('p', {class: 'muted'}, t('Guests have no RISCOS balance.')),
        h('h2', {}, t('Ratings')), acc.ratings.length ? h('ul', {}, acc.ratings.map((r) => h('li', {}, `${names[r.game] || r.game}: ${r.ordinal.toFixed(2)} (${t('{n} games', {n: r.games})})`)))
          : h('p', {class: 'muted'}, t('No rated games yet.')),
        acc.ledger.length ? [h('h2', {}, t('RISCOS entries')), h('ul', {}, acc.ledger.slice().reverse().map((e) =>
          h('li', {}, `${e.amount > 0 ? '+' : ''}${e.amount} `, h('a', {href: `/t/${e.table}`, 'data-link': ''}, t('table'))))) ] : null,
        h('button', {type: 'button', class: 'secondary', onclick: async () => { await api('POST', '/api/logout'); forgetMe(); go('/'); }}, t('Sign out'))),
      h('div', {class: 'panel'}, h('h2', {}, t('Your games')), acc.tables.length ? h('table', {class: 'grid stack'},
        h('tbody', {}, acc.tables.map((tb) => h('tr', {},
          h('td', {class: 'cell-game'}, names[tb.game] || tb.game), h('td', {class: 'cell-status'}, statusText(tb.status)),
          h('td', {class: 'cell-date'}, new Date(tb.created_at * 1000).toLocaleString(lang)),
          h('td', {class: 'buttons'}, h('a', {class: 'button secondary', href: `/t/${tb.id}`, 'data-link': ''}, t('Open')),
            tb.status === 'finished' ? h('a', {class: 'button secondary', href: `/replay?table=${tb.id}`, 'data-link': ''}, t('Replay')) : null)))))
        : h('p', {class: 'muted'}, t('No games yet.'))))));
}

(async () => {
  await setLang(preferredLang());
  route();
})();
