// The replay viewer: open a record (a finished table's, or a file), step forwards and back, watch
// as a spectator or, for a finished game, with every hand. The server steps the record through the
// engine (POST /web/replay); the page draws each step with the same per-game screens as the table.
import { h, mount } from './dom.js';
import { t } from './i18n.js';
import { renderBoard } from './board.js';
import { screenFor } from './gamescreens.js';

const MAX_BYTES = 2_000_000;

export async function replayPage(root) {
  const state = {data: null, i: 0, all: false, error: null};
  const fileInput = h('input', {type: 'file', accept: '.json,application/json', id: 'replay-file'});
  const tableInput = h('input', {name: 'table', placeholder: t('table id'), id: 'replay-table'});
  const out = h('div', {class: 'replay-out'});
  const load = async (text) => {
    state.error = null; state.data = null;
    if (text.length > MAX_BYTES) { state.error = t('A record may have at most 2 MB.'); draw(); return; }
    try {
      const r = await fetch('/web/replay', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: text});
      const data = await r.json().catch(() => ({}));
      if (!r.ok) { state.error = t('This record cannot be opened: {reason}', {reason: data.detail || `HTTP ${r.status}`}); }
      else { state.data = data; state.i = data.steps.length - 1; state.all = data.finished; }
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
  const step = (d) => { if (!state.data) return; state.i = Math.max(0, Math.min(state.data.steps.length - 1, state.i + d)); draw(); };
  const onKey = (e) => {
    if (!state.data || ['INPUT', 'SELECT', 'TEXTAREA'].includes(document.activeElement.tagName) && document.activeElement.type !== 'range') return;
    if (e.key === 'ArrowRight') { step(1); e.preventDefault(); }
    if (e.key === 'ArrowLeft') { step(-1); e.preventDefault(); }
  };
  document.addEventListener('keydown', onKey);

  function draw() {
    if (state.error) { mount(out, h('div', {class: 'banner error', role: 'alert', 'data-replay-error': ''}, state.error)); return; }
    const d = state.data;
    if (!d) { mount(out); return; }
    const s = d.steps[state.i];
    const log = []; const lines = [];
    for (let k = 0; k <= state.i; k++) { log.push(...d.steps[k].events); lines.push(...d.steps[k].lines); }
    const game = screenFor(d.game);
    const ctx = {game, view: {...s.view, log}, log, mySeat: null,
      seats: d.seats.map((name, i) => ({seat: i, name})), names: d.seats, legal: [], canAct: false, act: null,
      clock: {}, seatViews: state.all && s.seats ? s.seats : null, prompt: null};
    const slider = h('input', {type: 'range', min: 0, max: d.steps.length - 1, value: state.i, 'aria-label': t('Step'),
      oninput: (e) => { state.i = +e.target.value; draw(); }});
    const modeSel = h('select', {id: 'replay-mode', 'aria-label': t('Show'), disabled: !d.finished,
      onchange: (e) => { state.all = e.target.value === 'all'; draw(); }},
      h('option', {value: 'spectator', selected: !state.all}, t('as a spectator')),
      h('option', {value: 'all', selected: state.all}, t('with all hands')));
    mount(out,
      h('div', {class: 'panel replay-bar', 'data-step': state.i},
        h('strong', {}, d.game_name), ' · ', d.seats.join(', '),
        h('div', {class: 'controls'},
          h('button', {type: 'button', onclick: () => { state.i = 0; draw(); }, 'aria-label': t('First step')}, '|◀'),
          h('button', {type: 'button', id: 'replay-back', onclick: () => step(-1), 'aria-label': t('Back')}, '◀'),
          slider,
          h('button', {type: 'button', id: 'replay-forward', onclick: () => step(1), 'aria-label': t('Forward')}, '▶'),
          h('button', {type: 'button', onclick: () => { state.i = d.steps.length - 1; draw(); }, 'aria-label': t('Last step')}, '▶|'),
          modeSel),
        h('div', {class: 'muted'}, t('Step {i} of {n}', {i: state.i, n: d.steps.length - 1}), s.step ? ` · ${s.step}` : '',
          d.finished ? '' : ` · ${t('not a finished game: only what a spectator sees')}`),
        s.lines.length ? h('ul', {class: 'step-lines'}, s.lines.map((l) => h('li', {}, l))) : null),
      renderBoard(ctx),
      h('section', {class: 'panel log'}, h('h2', {}, t('What happened')),
        h('ol', {class: 'lines'}, lines.slice(-300).map((l) => h('li', {}, l)))));
    const ol = out.querySelector('.lines'); if (ol) ol.scrollTop = ol.scrollHeight;
  }

  mount(root, h('div', {class: 'page replay'}, h('h1', {}, t('Replay viewer')),
    h('div', {class: 'panel replay-open'},
      h('label', {}, t('Open a record file'), fileInput),
      h('form', {class: 'inline', onsubmit: (e) => { e.preventDefault(); if (tableInput.value.trim()) fromTable(tableInput.value.trim()); }},
        h('label', {}, t('or a finished table'), tableInput), h('button', {type: 'submit'}, t('Open')))),
    out));
  const id = new URLSearchParams(location.search).get('table');
  if (id) { tableInput.value = id; await fromTable(id); }
  return () => document.removeEventListener('keydown', onKey);
}
