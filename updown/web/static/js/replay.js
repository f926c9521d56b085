// The replay viewer: open a record (a finished table's, or a file), step forwards and back, watch
// as a spectator or, for a finished game, with every hand. The server steps the record through the
// engine (POST /web/replay); the page draws each step with the same per-game screens as the table.
//
// The moves are listed by deal (or round) and trick; a deal is one step (not one per card dealt);
// players are named. The table's chat, if the record has it, is shown line by line as the game
// reaches the moment each was said (plain text: a line is never read as HTML). The arrow keys
// step (Up/Down: a trick at a time), the slider drags, and the
// address's hash (#step=K, K the record's step) is a link to the position shown.
import { h, mount } from './dom.js';
import { h as v, patch } from './vdom.js';
import { lang, t } from './i18n.js';
import { actionText, boardView } from './board.js';
import { screenFor } from './gamescreens.js';
import { errorText } from './errors.js';
import { displayName, withNames } from './names.js';
import { PRESETS } from './table.js';

const MAX_BYTES = 2_000_000;
const OUTER_END = new Set(['score', 'round']);

// What the record's steps become in the viewer: items (a run of chance steps, such as a deal, is
// one item; each action is one) and groups (deals or rounds, each with its tricks).
export function buildMoves(d) {
  const game = screenFor(d.game);
  const steps = d.steps;
  /** @type {any[]} */ // each item gains its deal (outer) and trick below
  const items = [];
  let i = 0;
  while (i < steps.length) {
    const s = steps[i];
    if (i === 0 || s.seat === null || s.seat === undefined) {
      // Step 0 (the table before anything happened) and every run of chance steps: one item.
      let j = i;
      while (j + 1 < steps.length && (steps[j + 1].seat === null || steps[j + 1].seat === undefined)) j++;
      const run = steps.slice(i, j + 1);
      const labels = run.map((x) => (x.step || '').split(':')[0].trim());
      const lines = run.flatMap((x) => x.lines);
      let text;
      if (i === 0 && j === 0) text = t('The start');
      else if (labels.some((l) => l.startsWith('deal'))) text = t('The cards are dealt');
      else if (lines.length) text = lines[0];
      else if (labels.some((l) => l === 'draw')) text = t('Cards are drawn');
      else text = t('A chance step');
      items.push({first: i, last: j, seat: null, text, chance: true});
      i = j + 1;
    } else {
      const notation = s.step.slice(s.step.indexOf(': ') + 2);
      const before = {game, view: steps[i - 1].view, log: [], mySeat: null, names: d.seats};
      items.push({first: i, last: i, seat: s.seat, who: d.seats[s.seat] || t('Seat {n}', {n: s.seat + 1}),
        text: actionText(before, notation), card: /^(10|[2-9JQKA])[CDHS]$/.test(notation) || /^play /.test(notation)});
      i += 1;
    }
  }
  const events = (it) => steps.slice(it.first, it.last + 1).flatMap((x) => x.events.map((e) => e.type));
  const hasTricks = steps.some((x) => x.events.some((e) => e.type === 'trick'));
  const outerName = d.game === 'updown' ? (n) => t('Round {n}', {n}) : (n) => t('Deal {n}', {n});
  const groups = [];
  let outer = null; let inner = null; let tricks = 0;
  const newOuter = (at) => { outer = {title: hasTricks ? outerName(groups.length + 1) : t('The game'), start: at, entries: []}; groups.push(outer); inner = null; tricks = 0; };
  items.forEach((it, k) => {
    if (!outer) newOuter(k);
    const types = events(it);
    if (hasTricks) {
      if (!inner && it.card) { inner = {title: t('Trick {n}', {n: ++tricks}), start: k, end: k, items: []}; outer.entries.push({group: inner}); }
    } else if (it.seat !== null && (!inner || inner.seat !== it.seat)) {
      // A game without tricks: each player's turn is a group.
      inner = {title: t('{name}’s turn', {name: it.who}), seat: it.seat, start: k, end: k, items: []};
      outer.entries.push({group: inner});
    } else if (it.seat === null) inner = null;
    if (inner) { inner.items.push(k); inner.end = k; } else outer.entries.push({item: k});
    it.outer = groups.length - 1;
    it.trick = inner && hasTricks ? tricks : null;
    if (types.includes('trick')) inner = null;
    if (types.some((x) => OUTER_END.has(x)) && k < items.length - 1) outer = null;
  });
  return {items, groups};
}

export async function replayPage(root) {
  /** @type {{data: any, moves: any, pos: number, all: boolean, error: string | null, copied: string}} */ // data: the server's steps; moves: buildMoves's; copied: what the link button said
  const state = {data: null, moves: null, pos: 0, all: false, error: null, copied: ''};
  // The viewer is patched from the last step's vnode (vdom.js), not built anew: a step changes a few
  // elements (the board, the current move, the newest lines), and a long match's list of hundreds of
  // moves stays as it is. Rebuilding it all made a step cost 40 to 70 ms here, 300 ms and more on a
  // slow phone.
  /** @type {import('./vdom.js').VNode | null} */
  let drawn = null;
  const fileInput = h('input', {type: 'file', accept: '.json,application/json', id: 'replay-file'});
  const tableInput = h('input', {name: 'table', placeholder: t('table id'), id: 'replay-table'});
  const out = h('div', {class: 'replay-out'});
  const posOfStep = (k) => {
    const items = state.moves.items;
    const found = items.findIndex((it) => it.first <= k && k <= it.last);
    return found < 0 ? items.length - 1 : found;
  };
  const fromHash = () => {
    const m = /^#step=(\d+)$/.exec(location.hash);
    return m ? +m[1] : null;
  };
  const load = async (text) => {
    state.error = null; state.data = null;
    if (text.length > MAX_BYTES) { state.error = t('A record may have at most 2 MB.'); draw(); return; }
    try {
      const r = await fetch(`/web/replay?lang=${encodeURIComponent(lang)}`, {method: 'POST', headers: {'Content-Type': 'application/json'}, body: text});
      const data = await r.json().catch(() => ({}));
      if (!r.ok) { state.error = t('This record cannot be opened: {reason}', {reason: errorText(data.code, data.params, data.detail || `HTTP ${r.status}`)}); }
      else {
        // The record names the bots in English ("Greedy bot 1"): shown in the page's language.
        const english = data.seats || [];
        for (const step of data.steps || []) step.lines = (step.lines || []).map((l) => withNames(l, english));
        data.seats = english.map(displayName);
        state.data = data; state.moves = buildMoves(data); state.all = data.finished;
        const k = fromHash();
        state.pos = k === null ? state.moves.items.length - 1 : posOfStep(k);
      }
    } catch (e) { state.error = t('The server cannot be reached.'); }
    draw();
  };
  const fromTable = async (id) => {
    try {
      const r = await fetch(`/api/tables/${encodeURIComponent(id)}/record`);
      if (!r.ok) { state.error = t('No such table.'); draw(); return; }
      await load(await r.text());
    } catch (e) { state.error = t('The server cannot be reached.'); draw(); }
  };
  fileInput.addEventListener('change', async () => {
    const f = fileInput.files && fileInput.files[0];
    if (!f) return;
    if (f.size > MAX_BYTES) { state.error = t('A record may have at most 2 MB.'); draw(); return; }
    await load(await f.text());
  });
  const jump = (pos, focusList = false) => {
    if (!state.data) return;
    state.pos = Math.max(0, Math.min(state.moves.items.length - 1, pos));
    state.copied = '';
    const k = state.moves.items[state.pos].last;
    history.replaceState(history.state, '', `${location.pathname}${location.search}#step=${k}`);
    draw(focusList);
  };
  const step = (d) => jump(state.pos + d);
  // Up and Down: to the end of the previous or next trick (or group).
  const trickJump = (dir) => {
    const ends = [];
    for (const g of state.moves.groups) for (const e of g.entries) if (e.group) ends.push(e.group.end);
    const target = dir > 0 ? ends.find((x) => x > state.pos) : ends.reverse().find((x) => x < state.pos);
    jump(target === undefined ? (dir > 0 ? state.moves.items.length - 1 : 0) : target);
  };
  const onKey = (e) => {
    const el = /** @type {HTMLInputElement} */ (document.activeElement); // only its tag, and an input's type, are read
    if (!state.data || (['INPUT', 'SELECT', 'TEXTAREA'].includes(el.tagName) && el.type !== 'range') || e.altKey || e.ctrlKey || e.metaKey) return;
    if (/** @type {HTMLElement} */ (document.getElementById('modal-root')).firstChild) return; // index.html has it
    const keys = {ArrowRight: () => step(1), ArrowLeft: () => step(-1), ArrowDown: () => trickJump(1), ArrowUp: () => trickJump(-1),
      Home: () => jump(0), End: () => jump(state.moves.items.length - 1)};
    if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
  };
  const onHash = () => { const k = fromHash(); if (state.data && k !== null) { state.pos = posOfStep(k); draw(); } };
  document.addEventListener('keydown', onKey);
  window.addEventListener('hashchange', onHash);

  function moveList() {
    const {items, groups} = state.moves;
    const cur = state.pos;
    const itemButton = (k) => {
      const it = items[k];
      return v('li', {}, v('button', {type: 'button', class: `move ${k === cur ? 'current' : ''}`, 'data-pos': k,
        'aria-current': k === cur ? 'step' : null, onclick: () => jump(k)},
      it.who ? [v('span', {class: 'mv-who'}, it.who), ': '] : null, it.text));
    };
    return v('nav', {class: 'panel moves', 'aria-label': t('Moves')}, groups.map((g) => v('section', {class: 'deal-group'},
      v('h3', {}, v('button', {type: 'button', class: `group-head ${items[cur].outer === groups.indexOf(g) && g.start === cur ? 'current' : ''}`,
        'data-group': g.title, onclick: () => jump(g.start)}, g.title)),
      v('ol', {}, g.entries.map((e) => e.group
        ? v('li', {class: 'trick-group'}, v('button', {type: 'button', class: 'group-head', 'data-trick': e.group.title,
          onclick: () => jump(e.group.end), title: t('Go to the end of {what}', {what: e.group.title})}, e.group.title),
        v('ol', {}, e.group.items.map(itemButton)))
        : itemButton(e.item))))));
  }

  // The chat said up to the record's step `last`, the newest line marked (as the current move is).
  function chatPanel(last) {
    const said = (state.data.chat || []).filter((x) => x.step <= last);
    const newest = said.length - 1;
    const when = (at) => {
      if (typeof at !== 'number') return null;
      try { return new Date(at * 1000).toLocaleTimeString(lang, {hour: '2-digit', minute: '2-digit'}); } catch (e) { return null; }
    };
    const items = said.map((x, k) => v('li', {'data-seq': x.seq, 'data-chat-step': x.step, class: k === newest ? 'newest' : null,
      'aria-current': k === newest ? 'true' : null},
    when(x.at) ? v('span', {class: 'muted chat-time'}, when(x.at), ' ') : null,
    v('strong', {class: 'chat-name'}, x.name), x.seat === null || x.seat === undefined ? v('span', {class: 'tag'}, t('spectator')) : null, ': ',
    v('span', {class: 'chat-text'}, x.preset && PRESETS[x.preset] ? PRESETS[x.preset]() : x.text)));
    return v('section', {class: 'panel chat replay-chat', 'data-replay-chat': '', 'aria-labelledby': 'replay-chat-title'},
      v('h2', {id: 'replay-chat-title'}, t('Chat')),
      v('ol', {class: 'chat-lines', tabindex: 0, 'aria-label': t('Chat')},
        items.length ? items : v('li', {class: 'muted chat-empty'}, t('Nothing said yet.'))));
  }

  function draw(focusList = false) {
    if (state.error || !state.data) {
      drawn = null;
      if (state.error) mount(out, h('div', {class: 'banner error', role: 'alert', 'data-replay-error': ''}, state.error));
      else mount(out);
      return;
    }
    const d = state.data;
    const items = state.moves.items;
    const it = items[state.pos];
    const s = d.steps[it.last];
    const log = []; const lines = [];
    for (let k = 0; k <= it.last; k++) { log.push(...d.steps[k].events); lines.push(...d.steps[k].lines); }
    const stepLines = d.steps.slice(it.first, it.last + 1).flatMap((x) => x.lines);
    const game = screenFor(d.game);
    const ctx = {game, view: {...s.view, log}, log, lines, mySeat: null,
      seats: d.seats.map((name, i) => ({seat: i, name})), names: d.seats, legal: [], canAct: false, act: null,
      clock: {}, seatViews: state.all && s.seats ? s.seats : null, prompt: null};
    const where = [state.moves.groups[it.outer] ? state.moves.groups[it.outer].title : null,
      it.trick ? t('Trick {n}', {n: it.trick}) : null].filter(Boolean).join(' · ');
    const slider = v('input', {type: 'range', min: 0, max: items.length - 1, value: state.pos, 'aria-label': t('Step'), id: 'replay-slider',
      'aria-valuetext': `${where}: ${it.who ? `${it.who}: ` : ''}${it.text}`,
      oninput: (e) => jump(+e.target.value)});
    const modeSel = v('select', {id: 'replay-mode', 'aria-label': t('Show'), disabled: !d.finished, value: state.all ? 'all' : 'spectator',
      onchange: (e) => { state.all = e.target.value === 'all'; draw(); }},
      v('option', {value: 'spectator', selected: !state.all}, t('as a spectator')),
      v('option', {value: 'all', selected: state.all}, t('with all hands')));
    const keepFocus = document.activeElement && document.activeElement.id;
    const shown = lines.slice(-300);
    const first = lines.length - shown.length; // each line keyed by its place in the game: a step adds or drops a few
    const page = v('div', {class: 'replay-view'},
      v('div', {class: 'panel replay-bar', 'data-step': state.pos, 'data-record-step': it.last},
        v('strong', {}, d.game_name), ' · ', d.seats.join(', '),
        v('div', {class: 'controls'},
          v('button', {type: 'button', onclick: () => jump(0), 'aria-label': t('First step')}, '|◀'),
          v('button', {type: 'button', id: 'replay-back', onclick: () => step(-1), 'aria-label': t('Back')}, '◀'),
          slider,
          v('button', {type: 'button', id: 'replay-forward', onclick: () => step(1), 'aria-label': t('Forward')}, '▶'),
          v('button', {type: 'button', onclick: () => jump(items.length - 1), 'aria-label': t('Last step')}, '▶|'),
          modeSel),
        v('div', {class: 'replay-where', 'data-where': ''}, where ? `${where} · ` : '', it.who ? `${it.who}: ` : '', it.text),
        v('div', {class: 'muted'}, t('Step {i} of {n}', {i: state.pos, n: items.length - 1}),
          d.finished ? '' : ` · ${t('not a finished game: only what a spectator sees')}`, ' · ',
          v('button', {type: 'button', class: 'secondary small-btn', id: 'replay-link', onclick: async () => {
            try { await navigator.clipboard.writeText(location.href); state.copied = t('Link copied.'); } catch (e) { state.copied = location.href; }
            draw();
          }}, t('Copy the link to this position')), ' ', v('span', {class: 'muted', role: 'status'}, state.copied)),
        v('p', {class: 'muted keys-help'}, t('Keys: ← → a step, ↑ ↓ a trick, Home and End.')),
        stepLines.length ? v('ul', {class: 'step-lines'}, stepLines.map((l) => v('li', {}, l))) : null),
      v('div', {class: 'replay-main'},
        v('div', {}, boardView(ctx),
          v('section', {class: 'panel log'}, v('h2', {}, t('What happened')),
            v('ol', {class: 'lines', tabindex: 0, 'aria-label': t('What happened')}, shown.map((l, i) => v('li', {key: first + i}, l)))),
          d.chat && d.chat.length ? chatPanel(it.last) : null),
        moveList()));
    if (drawn && drawn.elm && drawn.elm.parentNode === out) drawn = patch(drawn, page);
    else { const spot = document.createElement('div'); mount(out, spot); drawn = patch(spot, page); }
    const ol = out.querySelector('.lines'); if (ol) ol.scrollTop = ol.scrollHeight;
    const chatList = out.querySelector('.replay-chat .chat-lines'); if (chatList) chatList.scrollTop = chatList.scrollHeight;
    // Keep the current move in view inside the list (not by scrolling the page).
    const moves = /** @type {HTMLElement} */ (out.querySelector('nav.moves'));
    const current = /** @type {HTMLElement | null} */ (moves.querySelector('button.move.current'));
    if (current) {
      const top = current.offsetTop - moves.offsetTop;
      if (top < moves.scrollTop || top > moves.scrollTop + moves.clientHeight - current.offsetHeight) {
        moves.scrollTop = Math.max(0, top - moves.clientHeight / 2);
      }
      if (focusList) current.focus({preventScroll: true});
    }
    if (keepFocus && document.activeElement && document.activeElement.id !== keepFocus) {
      const el = document.getElementById(keepFocus); if (el) el.focus({preventScroll: true});
    }
  }

  mount(root, h('div', {class: 'page replay'}, h('h1', {}, t('Replay viewer')),
    h('div', {class: 'panel replay-open'},
      h('label', {}, t('Open a record file'), fileInput),
      h('form', {class: 'inline', onsubmit: (e) => { e.preventDefault(); if (tableInput.value.trim()) fromTable(tableInput.value.trim()); }},
        h('label', {}, t('or a finished table'), tableInput), h('button', {type: 'submit'}, t('Open')))),
    out));
  const id = new URLSearchParams(location.search).get('table');
  if (id) { tableInput.value = id; await fromTable(id); }
  return () => { document.removeEventListener('keydown', onKey); window.removeEventListener('hashchange', onHash); };
}
