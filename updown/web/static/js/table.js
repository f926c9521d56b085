// A table, live: one WebSocket (docs/server.md), the frame protocol, and the board.
//   - keep the frame number n; a snapshot replaces the view, a frame appends its events;
//   - a frame whose `from` is not our n: ask for a resync;
//   - after a drop, reconnect with ?since=n, and resend every unacknowledged action with its id.
import { h, mount } from './dom.js';
import { lang, t } from './i18n.js';
import { api, me } from './api.js';
import { formatClock, renderBoard, seatName } from './board.js';
import { screenFor } from './gamescreens.js';
import { modal, showRules } from './rules.js';

const MAJOR = new Set(['trick', 'round', 'score', 'end', 'lone', 'tiebreak']);

export class TableClient {
  constructor(root, id, {watch = false} = {}) {
    this.root = root; this.id = id; this.watch = watch;
    this.ws = null; this.stopped = false; this.retry = 0;
    this.table = null; this.view = null; this.log = []; this.lines = []; this.n = null;
    this.legal = []; this.why = {}; this.clock = {}; this.clockAt = 0; this.leaveCosts = false;
    this.seat = null; this.helloSeat = undefined; this.account = null;
    this.pending = new Map(this.loadPending()); this.lastSentN = null; this.counter = 0;
    this.message = null; this.connState = 'connecting'; this.needResend = false; this.renderQueued = false;
    this.tick = setInterval(() => this.tickClocks(), 500);
  }

  // -- connection ------------------------------------------------------------------------------
  async start() {
    this.account = await me();
    try { this.table = await api('GET', `/api/tables/${encodeURIComponent(this.id)}`); } catch (e) {
      mount(this.root, h('div', {class: 'panel'}, h('h1', {}, t('No such table')), h('p', {}, e.message),
        h('a', {href: '/', 'data-link': ''}, t('Back to the lobby'))));
      this.stop();
      return;
    }
    this.connect();
    this.render();
  }

  stop() {
    this.stopped = true; clearInterval(this.tick);
    if (this.ws) { try { this.ws.close(); } catch (e) { /* gone */ } }
    window.__table = null;
  }

  connect(fresh = false) {
    if (this.stopped) return;
    if (fresh) { this.n = null; this.view = null; this.log = []; this.lines = []; }
    const q = [`lang=${encodeURIComponent(lang)}`];
    if (this.n !== null) q.push(`since=${this.n}`);
    if (this.watch) q.push('watch=1');
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws/tables/${encodeURIComponent(this.id)}?${q.join('&')}`;
    const ws = new WebSocket(url);
    this.ws = ws;
    this.connState = 'connecting';
    ws.onmessage = (ev) => { if (ws === this.ws) this.onMessage(JSON.parse(ev.data)); };
    ws.onclose = (ev) => {
      if (ws !== this.ws || this.stopped) return;
      if (ev.code === 4404) { this.connState = 'gone'; this.render(); return; }
      if (ev.code === 4001) {
        // The seat is no longer ours (we left, were signed out, or it was freed): what we had not
        // sent is dropped, and we come back as a spectator.
        this.pending.clear(); this.savePending();
        if (!this.message || this.message.kind !== 'info') this.message = {kind: 'info', text: t('This seat is no longer yours; you are watching.')};
        this.connect(true);
        return;
      }
      this.connState = 'reconnecting'; this.render();
      const delay = Math.min(5000, 300 * 2 ** this.retry++);
      setTimeout(() => { if (ws === this.ws) this.connect(); }, delay);
    };
    ws.onopen = () => { this.retry = 0; };
  }

  reconnect(fresh) {
    const old = this.ws; this.ws = null;
    if (old) { try { old.close(); } catch (e) { /* gone */ } }
    this.connect(fresh);
  }

  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) { this.ws.send(JSON.stringify(msg)); return true; }
    return false;
  }

  onMessage(m) {
    switch (m.type) {
      case 'hello':
        if (this.helloSeat !== undefined && this.helloSeat !== m.seat && this.n !== null) {
          // Frame numbers are per seat: a new seat starts from a snapshot.
          this.n = null; this.send({type: 'resync', since: null});
        }
        this.helloSeat = m.seat; this.seat = m.seat; this.connState = 'open'; this.needResend = true;
        break;
      case 'snapshot':
        this.view = m.view; this.log = m.view.log || []; this.lines = m.lines || []; this.n = m.n;
        this.extras(m);
        break;
      case 'frame':
        if (this.view === null || m.from !== this.n) { this.send({type: 'resync', since: this.view === null ? null : this.n}); return; }
        this.log = this.log.concat(m.events); this.lines = this.lines.concat(m.lines);
        this.view = {...m.view, log: this.log}; this.n = m.n;
        this.extras(m);
        break;
      case 'table': {
        const was = this.table && this.table.status;
        this.table = m.table;
        if (this.seat === null && !this.watch && this.account && m.table.seats.some((s) => s.kind === 'person' && s.name === this.account.name && !s.left)) {
          this.reconnect(true); // we took a seat (in this tab or another): play it
        }
        if (was !== m.table.status && m.table.status === 'finished') this.lastSentN = null;
        break;
      }
      case 'ack':
        this.pending.delete(m.id); this.savePending();
        if (m.left) this.message = {kind: 'info', text: t('You left the game; a bot plays your seat.')};
        break;
      case 'error':
        if (m.id) { this.pending.delete(m.id); this.savePending(); }
        this.lastSentN = null;
        this.message = {kind: 'error', text: t('Refused: {message}', {message: m.message})};
        break;
      default:
        break;
    }
    this.queueRender();
  }

  extras(m) {
    this.legal = m.legal || []; this.why = m.why || {}; this.clock = m.clock || {}; this.clockAt = performance.now();
    this.leaveCosts = !!m.leave_costs;
    if (this.needResend) {
      this.needResend = false;
      for (const [id, action] of this.pending) this.send({type: 'act', id, action});
    }
  }

  // -- acting ----------------------------------------------------------------------------------
  // Why nothing can be played for a moment (the page waits for the server), or null.
  waitWhy() {
    if (this.seat === null || this.seat === undefined) return null;
    if (this.connState !== 'open') return t('Connection lost; reconnecting…');
    if (this.pending.size || this.n === this.lastSentN) return t('your move is on its way to the table; wait a moment');
    return null;
  }

  canAct() {
    return this.seat !== null && this.pending.size === 0 && this.n !== this.lastSentN && this.connState === 'open';
  }

  act(notation) {
    const a = this.legal.find((x) => x.notation === notation);
    if (!a || !this.canAct()) return;
    const id = `${Date.now().toString(36)}-${(++this.counter).toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
    this.pending.set(id, a.id); this.savePending();
    this.lastSentN = this.n; this.message = null;
    this.send({type: 'act', id, action: a.id});
    this.render();
  }

  loadPending() {
    try { return JSON.parse(sessionStorage.getItem(`updown.pending.${this.id}`) || '[]'); } catch (e) { return []; }
  }

  savePending() {
    sessionStorage.setItem(`updown.pending.${this.id}`, JSON.stringify([...this.pending]));
  }

  leave() {
    const text = this.leaveCosts
      ? t('Leave this game for good? A bot takes your seat, and leaving costs you 100 RISCOS.')
      : t('Leave this game for good? A bot takes your seat.');
    modal(t('Leave the game'), h('p', {}, text), [
      [t('Stay'), null],
      [this.leaveCosts ? t('Leave and pay 100 RISCOS') : t('Leave'), () => this.send({type: 'leave', id: `leave-${Date.now().toString(36)}`}), 'danger'],
    ]);
  }

  async seatAction(path, body) {
    try {
      this.table = await api('POST', `/api/tables/${encodeURIComponent(this.id)}/${path}`, body || {});
      this.message = null;
      this.reconnect(true);
    } catch (e) { this.message = {kind: 'error', text: e.message}; }
    this.render();
  }

  // -- drawing ---------------------------------------------------------------------------------
  queueRender() {
    if (this.renderQueued) return;
    this.renderQueued = true;
    requestAnimationFrame(() => { this.renderQueued = false; this.render(); });
  }

  clockNow() {
    const gone = (performance.now() - this.clockAt) / 1000;
    const out = {};
    for (const [s, secs] of Object.entries(this.clock || {})) out[s] = Math.max(0, secs - gone);
    return out;
  }

  tickClocks() {
    const c = this.clockNow();
    for (const el of this.root.querySelectorAll('.clock[data-seat]')) {
      const secs = c[el.dataset.seat];
      if (secs !== undefined) { el.textContent = formatClock(secs); el.classList.toggle('low', secs < 10); }
    }
  }

  render() {
    if (this.stopped || !this.table) return;
    window.__table = this;
    const tb = this.table;
    const game = screenFor(tb.game);
    const focusKey = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.key : null;
    const logScroll = this.root.querySelector('.lines');
    const stick = !logScroll || logScroll.scrollTop + logScroll.clientHeight >= logScroll.scrollHeight - 30;
    const mySeat = this.seat;
    const seated = mySeat !== null && mySeat !== undefined;
    const mine = seated ? tb.seats[mySeat] : null;
    const head = h('div', {class: 'table-head'},
      h('h1', {}, tb.game_name, ' ', h('span', {class: `status st-${tb.status}`}, statusText(tb.status))),
      h('div', {class: 'head-buttons'},
        h('button', {type: 'button', class: 'secondary', onclick: () => showRules(tb.game, tb.game_name)}, t('Rules')),
        tb.status === 'running' && seated && mine && !mine.left
          ? h('button', {type: 'button', class: 'danger', 'data-leave': '', onclick: () => this.leave()}, t('Leave the game')) : null,
        tb.status === 'open' && seated
          ? h('button', {type: 'button', class: 'secondary', onclick: () => this.seatAction('leave')}, t('Leave this seat')) : null));
    const banners = [];
    if (this.connState === 'reconnecting') banners.push(h('div', {class: 'banner warn'}, t('Connection lost; reconnecting…')));
    if (this.connState === 'gone') banners.push(h('div', {class: 'banner error'}, t('This table no longer exists.')));
    if (tb.status === 'aborted') banners.push(h('div', {class: 'banner info'}, t('This table ended without a result: its players left before anyone played.')));
    if (!seated && tb.status !== 'open') banners.push(h('div', {class: 'banner info', 'data-spectator': ''}, t('You are watching this game.')));
    if (seated && mine && mine.away && !mine.left) {
      banners.push(h('div', {class: 'banner warn'}, t('A bot is playing for you while you are away.'), ' ',
        h('button', {type: 'button', onclick: () => this.send({type: 'back'})}, t('I am back'))));
    }
    if (this.message) banners.push(h('div', {class: `banner ${this.message.kind}`, role: 'alert'}, this.message.text));
    const parts = [head, banners];
    if (tb.status === 'open') parts.push(this.waiting());
    else if (this.view) {
      const ctx = {
        game, view: this.view, log: this.log, mySeat, seats: tb.seats, names: tb.seats.map((s) => s.name),
        legal: this.legal, why: this.why, canAct: this.canAct(), act: (a) => this.act(a), clock: this.clockNow(),
        waitWhy: this.waitWhy(),
      };
      if (this.pending.size) ctx.prompt = t('Sending…');
      if (tb.status === 'finished') parts.push(this.results(game));
      parts.push(renderBoard(ctx));
      parts.push(this.linesPanel());
    } else parts.push(h('p', {class: 'muted'}, t('Loading…')));
    mount(this.root, h('div', {class: 'table-page', 'data-n': this.n === null ? '' : this.n,
      'data-status': tb.status, 'data-seat': seated ? mySeat : 'spectator', 'data-phase': this.view ? this.view.phase : '', 'data-busy': this.canAct() ? '0' : '1'}, parts));
    const lines = this.root.querySelector('.lines');
    if (lines && stick) lines.scrollTop = lines.scrollHeight;
    if (focusKey) {
      const el = this.root.querySelector(`[data-key="${CSS.escape(focusKey)}"]`) || this.root.querySelector('.hand button.legal');
      if (el) el.focus({preventScroll: true});
    }
  }

  waiting() {
    const tb = this.table;
    const seated = this.seat !== null;
    const link = `${location.origin}/t/${tb.id}`;
    const canJoin = this.account && !tb.seats.some((s) => s.kind === 'person' && s.name === this.account.name) &&
      !(tb.rated && this.account.kind !== 'person');
    return h('div', {class: 'panel waiting'},
      h('h2', {}, t('Waiting for players')),
      h('p', {}, t('The game starts by itself when every seat is taken.')),
      tb.rated ? h('p', {class: 'rated-note'}, tb.leave_cost
        ? t('Rated table: leaving, or being away for more than {grace} s, counts as a loss and costs {cost} RISCOS at once.', {grace: Math.round(tb.grace), cost: tb.leave_cost})
        : t('Rated table: leaving, or being away for more than {grace} s, counts as a loss.', {grace: Math.round(tb.grace)})) : null,
      h('ul', {class: 'seat-list'}, tb.seats.map((s) => h('li', {},
        h('strong', {}, t('Seat {n}', {n: s.seat + 1})), ': ',
        s.kind === 'open' ? h('span', {class: 'muted'}, t('open')) : s.name,
        s.kind === 'bot' ? h('span', {class: 'tag bot'}, t('bot')) : null,
        s.kind === 'open' && canJoin ? h('button', {type: 'button', 'data-join': s.seat, onclick: () => this.seatAction('join', {seat: s.seat})}, t('Sit here')) : null))),
      !this.account ? h('p', {}, h('a', {href: `/signin?next=/t/${tb.id}`, 'data-link': ''}, t('Sign in or play as a guest to take a seat.'))) : null,
      h('div', {class: 'invite'}, h('label', {}, t('Invite link'), h('input', {readonly: true, value: link, onclick: (e) => e.target.select()})),
        h('button', {type: 'button', class: 'secondary', onclick: () => navigator.clipboard && navigator.clipboard.writeText(link)}, t('Copy'))),
      seated ? h('p', {class: 'muted'}, t('You have seat {n}.', {n: this.seat + 1})) : null);
  }

  results(game) {
    const tb = this.table;
    const res = tb.result || (this.view && this.view.result) || {};
    const server = res.server || {};
    const placings = res.placings || [];
    const order = tb.seats.map((s) => s.seat).sort((a, b) => (placings[a] || 0) - (placings[b] || 0));
    const rows = order.map((s) => {
      const r = server.ratings && server.ratings[s];
      const riscos = server.riscos ? server.riscos[s] : (res.riscos ? res.riscos[s] : null);
      return h('tr', {class: s === this.seat ? 'you' : ''},
        h('td', {}, placings[s] !== undefined ? `${placings[s]}.` : ''),
        h('td', {class: 'cell-player'}, tb.seats[s].name),
        h('td', {class: 'num'}, res.scores ? String(res.scores[s]) : ''),
        h('td', {class: 'num'}, r ? h('span', {}, signed(r.after - r.before, 2), ' ', h('span', {class: 'muted rating-range'}, `(${r.before.toFixed(1)} → ${r.after.toFixed(1)})`)) : '—'),
        h('td', {class: 'num'}, riscos === null || riscos === undefined ? '—' : signed(riscos, 0)));
    });
    return h('section', {class: 'panel results', 'data-results': ''},
      h('h2', {}, t('Game over')),
      h('table', {class: 'grid results-grid'},
        h('thead', {}, h('tr', {}, h('th', {}, t('Place')), h('th', {}, t('Player')), h('th', {}, t('Score')),
          h('th', {}, t('Rating change')), h('th', {}, t('RISCOS change')))),
        h('tbody', {}, rows)),
      !tb.rated ? h('p', {class: 'muted'}, t('This table was not rated: ratings and RISCOS do not change.')) : null,
      h('p', {class: 'buttons'},
        h('a', {class: 'button', href: `/api/tables/${tb.id}/record`, download: `${tb.game}-${tb.id}.json`}, t('Download the record')),
        h('a', {class: 'button secondary', href: `/replay?table=${tb.id}`, 'data-link': ''}, t('Watch the replay')),
        h('a', {class: 'button secondary', href: '/', 'data-link': ''}, t('Back to the lobby'))));
  }

  linesPanel() {
    const items = [];
    const start = Math.max(0, this.lines.length - 300);
    for (let i = start; i < this.lines.length; i++) {
      const e = this.log[i] || {};
      items.push(h('li', {class: MAJOR.has(e.type) ? 'major' : ''}, this.lines[i]));
    }
    return h('section', {class: 'panel log'}, h('h2', {}, t('What happened')), h('ol', {class: 'lines', 'aria-live': 'polite'}, items));
  }
}

export function statusText(s) {
  return {open: t('waiting for players'), running: t('playing'), finished: t('finished'),
    aborted: t('ended: nobody played'), closed: t('closed by the host')}[s] || s;
}

function signed(x, digits) {
  const v = digits ? x.toFixed(digits) : String(Math.round(x));
  return x > 0 ? `+${v}` : v;
}
