// A table, live: one WebSocket (docs/server.md), the frame protocol, and the board.
//   - keep the frame number n; a snapshot replaces the view, a frame appends its events;
//   - a frame whose `from` is not our n: ask for a resync;
//   - after a drop, reconnect with ?since=n, and resend every unacknowledged action with its id.
import { h as el, mount, navigate } from './dom.js';
import { h, patch } from './vdom.js';
import { lang, t } from './i18n.js';
import { api, me } from './api.js';
import { actionText, boardView, formatClock, seatName } from './board.js';
import { screenFor } from './gamescreens.js';
import { modal, showRules } from './rules.js';
import { animate, measure } from './motion.js';
import { chime, notifyOn, notifyPermission, notifySupported, notifyTurn, setNotify, setSound, soundOn, turnTitle } from './alerts.js';
import { errorText, messageOf } from './errors.js';
import { displayName, withNames } from './names.js';

const CHAT_MAX = 200;
// The preset phrases (the server's keys), each said in the reader's language.
export const PRESETS = {
  hello: () => t('Hello'), 'good-luck': () => t('Good luck'), 'well-played': () => t('Well played'),
  thanks: () => t('Thanks'), oops: () => t('Oops'), 'good-game': () => t('Good game'),
};

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
    this.motions = 0; this.myTurn = false; this.turns = 0; this.beeps = 0; this.notified = 0; // turn alerts (counted for tests)
    this.hint = null; this.review = null; this.rematch = null;
    /** @type {ReturnType<typeof setInterval> | undefined} */
    this.rematchTimer = undefined;
    this.service = null; // the server's database or Redis away (see onMessage)
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.resendTimer = undefined;
    this.wantFocus = false; this.resultsShown = false;
    /** @type {{lines: {seq: number, name: string, seat: number | null, text?: string, preset?: string}[], more: boolean,
     *   error: string | null, pending: string | null, sentText?: string}} */
    this.chat = {lines: [], more: false, error: null, pending: null};
    // The chat panel's parts, made by chatPanel() on the first drawing (drawChat waits for them).
    /** @type {HTMLElement | null} */
    this.chatEl = null;
    /** @type {HTMLElement} */ this.chatList = /** @type {any} */ (undefined);
    /** @type {HTMLInputElement | undefined} */ this.chatInput = undefined;
    /** @type {HTMLElement} */ this.chatError = /** @type {any} */ (undefined);
    /** @type {HTMLElement} */ this.chatNote = /** @type {any} */ (undefined);
    /** @type {HTMLElement} */ this.chatPresets = /** @type {any} */ (undefined);
    /** @type {HTMLElement} */ this.chatForm = /** @type {any} */ (undefined);
    /** @type {HTMLElement} */ this.chatSignIn = /** @type {any} */ (undefined);
    /** @type {import('./vdom.js').VNode | null} */
    this.pageVnode = null; // the page as last drawn (render patches it)
    this.watchers = null; // {count, names}: who watches, from the server's watchers messages
    this.tick = setInterval(() => this.tickClocks(), 500);
  }

  // -- connection ------------------------------------------------------------------------------
  async start() {
    this.account = await me();
    try { this.table = await api('GET', `/api/tables/${encodeURIComponent(this.id)}`); } catch (e) {
      mount(this.root, el('div', {class: 'panel'}, el('h1', {}, t('No such table')), el('p', {}, messageOf(e)),
        el('a', {href: '/', 'data-link': ''}, t('Back to the lobby'))));
      this.stop();
      return;
    }
    this.connect();
    this.render();
  }

  stop() {
    this.stopped = true; clearInterval(this.tick); clearInterval(this.rematchTimer); clearTimeout(this.resendTimer);
    document.title = 'updown';
    if (this.ws) { try { this.ws.close(); } catch (e) { /* gone */ } }
    /** @type {any} */ (window).__table = null;
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
      if (ev.code === 1013) this.service = {busy: true, down: ['database']}; // try again later
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
        this.helloSeat = m.seat; this.seat = m.seat; this.connState = 'open'; this.needResend = true; this.service = null;
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
      case 'chat': {
        // The history when the socket opens (replacing what we had), then each new line once.
        const known = new Set(m.history ? [] : this.chat.lines.map((x) => x.seq));
        const add = (m.lines || []).filter((x) => !known.has(x.seq));
        this.chat.lines = (m.history ? add : this.chat.lines.concat(add)).slice(-300);
        if (m.history) this.chat.more = !!m.more;
        this.drawChat();
        return;
      }
      case 'watchers':
        this.watchers = {count: m.count, names: m.names || []};
        break;
      case 'ack':
        if (m.id && m.id === this.chat.pending) {
          this.chat.pending = null; this.chat.error = null;
          if (this.chatInput && this.chat.sentText !== undefined && this.chatInput.value === this.chat.sentText) this.chatInput.value = '';
          this.drawChat();
          return;
        }
        this.pending.delete(m.id); this.savePending();
        if (m.left) this.message = {kind: 'info', text: t('You left the game; a bot plays your seat.')};
        break;
      case 'service':
        // The server lost its database or Redis, or has them back (busy: moves cannot be stored now).
        this.service = m.down && m.down.length ? m : null;
        if (!this.service && this.pending.size) this.resendSoon(0);
        break;
      case 'error':
        if (m.id && m.id === this.chat.pending) {
          this.chat.pending = null;
          this.chat.error = errorText(m.code, chatParams(m), m.message);
          this.drawChat();
          return;
        }
        if ((m.code === 'busy' || m.code === 'not-stored') && m.id && this.pending.has(m.id)) {
          // Nothing was stored: the same move, with the same id, is sent again shortly.
          this.resendSoon(1000);
          break;
        }
        if (m.id) { this.pending.delete(m.id); this.savePending(); }
        this.lastSentN = null;
        this.message = {kind: 'error', text: t('Refused: {message}', {message: errorText(m.code, chatParams(m), m.message)})};
        break;
      default:
        break;
    }
    this.turnCheck();
    this.queueRender();
  }

  // The tab's title says when it is your turn, at once (a hidden tab draws nothing until it is
  // shown again); when the turn comes, a chime if you turned the sound on, and a notification if
  // the tab is hidden and you allowed them.
  turnCheck() {
    const tb = this.table;
    const mine = !!(tb && tb.status === 'running' && this.seat !== null && this.seat !== undefined && this.view &&
      this.legal.length && !(tb.seats[this.seat] && (tb.seats[this.seat].away || tb.seats[this.seat].left)));
    document.title = turnTitle(mine, tb && tb.game_name);
    if (mine && !this.myTurn) {
      this.turns++;
      if (soundOn() && chime()) this.beeps++;
      if (notifyTurn(tb.game_name, `updown-${this.id}`)) this.notified++;
    }
    this.myTurn = mine;
  }

  extras(m) {
    this.legal = m.legal || []; this.why = m.why || {}; this.clock = m.clock || {}; this.clockAt = performance.now();
    this.leaveCosts = !!m.leave_costs;
    if (this.needResend) {
      this.needResend = false;
      for (const [id, action] of this.pending) this.send({type: 'act', id, action});
    }
  }

  resendSoon(delay) {
    clearTimeout(this.resendTimer);
    this.resendTimer = setTimeout(() => {
      for (const [id, action] of this.pending) this.send({type: 'act', id, action});
    }, delay);
  }

  // -- acting ----------------------------------------------------------------------------------
  // Why nothing can be played for a moment (the page waits for the server), or null.
  waitWhy() {
    if (this.seat === null || this.seat === undefined) return null;
    if (this.service && this.service.busy) return t('The server is busy; your move is sent again by itself.');
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
    this.lastSentN = this.n; this.message = null; this.hint = null;
    this.wantFocus = true; // after the action, the focus goes to the next thing to do (render)
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
    modal(t('Leave the game'), el('p', {}, text), [
      [t('Stay'), null],
      [this.leaveCosts ? t('Leave and pay 100 RISCOS') : t('Leave'), () => this.send({type: 'leave', id: `leave-${Date.now().toString(36)}`}), 'danger'],
    ]);
  }

  async seatAction(path, body) {
    try {
      this.table = await api('POST', `/api/tables/${encodeURIComponent(this.id)}/${path}`, body || {});
      this.message = null;
      this.reconnect(true);
    } catch (e) { this.message = {kind: 'error', text: messageOf(e)}; }
    this.render();
  }

  // -- drawing ---------------------------------------------------------------------------------
  queueRender() {
    if (this.renderQueued) return;
    this.renderQueued = true;
    const draw = () => { this.renderQueued = false; this.render(); };
    // A hidden tab gets no animation frames: draw anyway, so it is up to date when shown.
    if (document.visibilityState === 'hidden') setTimeout(draw, 0); else requestAnimationFrame(draw);
  }

  clockNow() {
    const gone = (performance.now() - this.clockAt) / 1000;
    const out = {};
    for (const [s, secs] of Object.entries(this.clock || {})) out[s] = Math.max(0, secs - gone);
    return out;
  }

  tickClocks() {
    const c = this.clockNow();
    for (const node of this.root.querySelectorAll('.clock[data-seat]')) {
      const secs = c[node.dataset.seat];
      if (secs !== undefined) { node.textContent = formatClock(secs); node.classList.toggle('low', secs < 10); }
    }
  }

  render() {
    if (this.stopped || !this.table) return;
    /** @type {any} */ (window).__table = this; // for the browser tests
    const tb = this.table;
    const game = screenFor(tb.game);
    const active = document.activeElement;
    const inTable = !!active && (active === document.body || this.root.contains(active));
    const focusKey = inTable && active instanceof HTMLElement ? active.dataset.key : null;
    if (!inTable) this.wantFocus = false; // the player went elsewhere (a menu, a dialog): leave the focus there
    const logScroll = this.root.querySelector('.lines');
    const stick = !logScroll || logScroll.scrollTop + logScroll.clientHeight >= logScroll.scrollHeight - 30;
    const mySeat = this.seat;
    const seated = mySeat !== null && mySeat !== undefined;
    const mine = seated ? tb.seats[mySeat] : null;
    const head = h('div', {class: 'table-head'},
      h('h1', {}, tb.game_name, ' ', h('span', {class: `status st-${tb.status}`}, statusText(tb.status))),
      h('div', {class: 'head-buttons'},
        h('button', {type: 'button', class: 'secondary', onclick: () => showRules(tb.game, tb.game_name)}, t('Rules')),
        seated && (tb.status === 'running' || tb.status === 'open') ? this.alertButtons() : null,
        tb.status === 'running' && seated && mine && !mine.left
          ? h('button', {type: 'button', class: 'danger', 'data-leave': '', onclick: () => this.leave()}, t('Leave the game')) : null,
        tb.status === 'open' && seated
          ? h('button', {type: 'button', class: 'secondary', onclick: () => this.seatAction('leave')}, t('Leave this seat')) : null));
    const banners = [];
    const w = this.watchers;
    if (w && w.count > 0) {
      const others = w.count - w.names.length;
      banners.push(h('p', {class: 'watchers', 'data-watchers': w.count},
        w.count === 1 ? t('1 spectator') : t('{n} spectators', {n: w.count}),
        w.names.length ? `: ${w.names.join(', ')}` : '',
        w.names.length && others > 0 ? ` ${t('and {n} more', {n: others})}` : ''));
    }
    if (this.connState === 'reconnecting') banners.push(h('div', {class: 'banner warn'}, t('Connection lost; reconnecting…')));
    if (this.service) {
      banners.push(h('div', {class: 'banner warn', role: 'status', 'data-service': this.service.down.join(' ')},
        this.service.busy ? t('The server cannot reach its database: moves wait until it is back. Retrying…')
          : t('The server is slow to pass moves on; retrying…')));
    }
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
        game, view: this.view, log: this.log, lines: this.lines, mySeat, seats: tb.seats, names: tb.seats.map((s) => s.name),
        legal: this.legal, why: this.why, canAct: this.canAct(), act: (a) => this.act(a), clock: this.clockNow(),
        waitWhy: this.waitWhy(),
      };
      if (this.pending.size) ctx.prompt = t('Sending…');
      ctx.coach = this.coachPanel(ctx);
      if (this.hint && this.hint.n === this.n && this.hint.list) {
        ctx.hints = new Map(this.hint.list.map((x) => [x.notation, x]));
      }
      parts.push(boardView(ctx));
      // The game's end is shown under the hand, where the player was looking, and scrolled to.
      if (tb.status === 'finished') parts.push(this.results(game, ctx));
      parts.push(this.linesPanel());
    } else parts.push(h('p', {class: 'muted'}, t('Loading…')));
    const before = this.view && this.root.querySelector('.board') ? measure(this.root) : null;
    const page = h('div', {class: 'table-page', 'data-n': this.n === null ? '' : this.n,
      'data-status': tb.status, 'data-seat': seated ? mySeat : 'spectator', 'data-phase': this.view ? this.view.phase : '', 'data-busy': this.canAct() ? '0' : '1'}, parts);
    // The page is patched from the last frame's vnode: what stays keeps its element, so its focus,
    // scroll, hover and running animations stay. The chat panel beside it is not part of it (what
    // is typed in it stays too).
    const last = this.pageVnode;
    if (last && last.elm && last.elm.parentNode === this.root && this.chatEl && this.chatEl.parentNode === this.root) {
      this.pageVnode = patch(last, page);
    } else {
      const spot = el('div');
      mount(this.root, spot, this.chatPanel());
      this.pageVnode = patch(spot, page);
    }
    this.drawChat();
    const lines = this.root.querySelector('.lines');
    if (lines && stick) lines.scrollTop = lines.scrollHeight;
    this.motions += animate(this.root, before);
    this.placeFocus(focusKey);
    if (tb.status === 'finished' && this.view) this.showResults();
    else this.resultsShown = false;
    if (tb.status === 'finished') this.watchRematch(); else { clearInterval(this.rematchTimer); this.rematchTimer = undefined; }
  }

  // The next sensible control: what can be played now, else the game's end, else nothing.
  nextControl() {
    return this.root.querySelector('.hand button.hand-card.legal') ||
      this.root.querySelector('.board [data-action].legal:not([aria-disabled="true"])') ||
      this.root.querySelector('[data-results] [data-key="rematch"], [data-results] [data-key="rematch-go"]');
  }

  // After an action the focus goes to the next thing to do (the first playable card or button,
  // the rematch at the end); while the others play it stays on the hand, not on the page.
  placeFocus(focusKey) {
    let target = focusKey ? this.root.querySelector(`[data-key="${CSS.escape(focusKey)}"]`) : null;
    if (this.wantFocus) {
      const next = this.nextControl();
      if (next) { target = next; this.wantFocus = false; } else if (!target) target = this.root.querySelector('.hand button.hand-card');
    } else if (focusKey && !target) target = this.root.querySelector('.hand button.legal');
    if (target && target !== document.activeElement) target.focus({preventScroll: true});
  }

  showResults() {
    if (this.resultsShown) return;
    this.resultsShown = true;
    const panel = this.root.querySelector('[data-results]');
    if (!panel) return;
    const calm = window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches;
    panel.scrollIntoView({block: 'start', behavior: calm ? 'auto' : 'smooth'});
  }

  // -- turn alerts ------------------------------------------------------------------------------
  alertButtons() {
    const sound = soundOn();
    const buttons = [h('button', {type: 'button', class: `secondary toggle ${sound ? 'on' : ''}`, 'aria-pressed': sound ? 'true' : 'false',
      'data-sound': '', 'data-key': 'sound', title: t('A short sound when it is your turn'),
      onclick: () => { setSound(!soundOn()); if (soundOn()) chime(); this.render(); }}, sound ? t('Sound: on') : t('Sound: off'))];
    if (notifySupported()) {
      const on = notifyOn();
      const blocked = notifyPermission() === 'denied';
      buttons.push(h('button', {type: 'button', class: `secondary toggle ${on ? 'on' : ''}`, 'aria-pressed': on ? 'true' : 'false',
        'data-notify': '', 'data-key': 'notify', 'aria-disabled': blocked ? 'true' : null,
        title: blocked ? t('This browser blocks notifications from this site.') : t('A notification when it is your turn and this tab is hidden'),
        onclick: blocked ? null : async () => { await setNotify(!notifyOn()); this.render(); }},
      on ? t('Notifications: on') : t('Notifications: off')));
    }
    return buttons;
  }

  // -- the coach ---------------------------------------------------------------------------------
  // On unrated tables, a Hint button when it is your turn: the server's coach estimates each legal
  // action from your seat's view alone; the best is marked.
  coachPanel(ctx) {
    const tb = this.table;
    if (tb.rated || tb.status !== 'running' || this.seat === null || this.seat === undefined || this.legal.length < 2 || !ctx.canAct) return null;
    const hint = this.hint && this.hint.n === this.n ? this.hint : null;
    if (hint && hint.list) {
      return h('section', {class: 'coach', 'data-coach': '', 'aria-label': t('Hint')},
        h('h2', {}, t('The coach’s estimates')),
        h('ol', {class: 'hint-list'}, hint.list.map((x) => h('li', {class: x.best ? 'best' : '', 'data-hint': x.notation},
          h('span', {class: 'hint-action'}, actionText(ctx, x.notation)),
          h('span', {class: 'hint-est'}, signed(x.estimate, 2)),
          x.best ? h('span', {class: 'tag best'}, t('best')) : null,
          x.clearly_worse ? h('span', {class: 'tag warn'}, t('clearly worse')) : null))),
        h('p', {class: 'coach-note'}, t('Points gained on the others by the end of the deal, estimated from what you can see.')));
    }
    return h('div', {class: 'coach', 'data-coach': ''},
      h('button', {type: 'button', class: 'secondary hint-button', 'data-key': 'hint', 'aria-disabled': hint && hint.loading ? 'true' : null,
        onclick: hint && hint.loading ? null : () => this.askHint()}, hint && hint.loading ? t('The coach is thinking…') : t('Hint')),
      hint && hint.error ? h('span', {class: 'form-error', role: 'alert'}, hint.error) : null);
  }

  async askHint() {
    const n = this.n;
    this.hint = {n, loading: true};
    this.render();
    let next;
    try {
      const r = await api('GET', `/api/tables/${encodeURIComponent(this.id)}/hint?budget=300`);
      next = {n, list: r.hints};
    } catch (e) { next = {n, error: messageOf(e)}; }
    if (this.n === n && this.hint && this.hint.n === n) { this.hint = next; this.render(); }
  }

  // -- after the game: the review and the rematch -------------------------------------------------
  async askReview() {
    this.review = {loading: true};
    this.render();
    try { this.review = {data: await api('GET', `/api/tables/${encodeURIComponent(this.id)}/review`)}; } catch (e) { this.review = {error: messageOf(e)}; }
    this.render();
  }

  reviewPanel(ctx) {
    const r = this.review;
    if (!r) {
      return h('button', {type: 'button', class: 'secondary', 'data-key': 'review', onclick: () => this.askReview()}, t('Review my game'));
    }
    if (r.loading) return h('p', {class: 'muted', role: 'status'}, t('The coach is going through your decisions…'));
    if (r.error) return h('p', {class: 'form-error', role: 'alert'}, r.error);
    const d = r.data;
    const row = (x) => h('li', {class: x.mistake ? 'mistake' : '', 'data-decision': x.decision, 'data-mistake': x.mistake ? '1' : '0'},
      h('span', {class: 'dec-no'}, t('Decision {n}', {n: x.decision})), ' ',
      t('you played {played} ({estimate})', {played: actionText(rctx, x.played), estimate: signed(x.played_estimate, 2)}),
      x.played === x.best ? h('span', {class: 'tag best'}, t('best'))
        : [', ', t('best: {best} ({estimate})', {best: actionText(rctx, x.best), estimate: signed(x.best_estimate, 2)})],
      x.mistake ? h('span', {class: 'tag warn'}, t('clearly worse')) : null, ' ',
      h('a', {href: `/replay?table=${encodeURIComponent(this.id)}#step=${x.step}`, 'data-link': ''}, t('see it')));
    const rctx = {...ctx, review: true};
    const worse = d.decisions.filter((x) => x.mistake);
    return h('section', {class: 'review', 'data-review': ''},
      h('h3', {}, t('Your decisions')),
      h('p', {}, t('{n} of {m} decisions clearly worse than the best.', {n: d.mistakes, m: d.decisions.length})),
      worse.length ? h('ol', {class: 'review-list mistakes'}, worse.map(row)) : h('p', {}, t('No decision was clearly worse than the best: well played.')),
      d.decisions.length ? h('details', {class: 'all-decisions'}, h('summary', {}, t('All {n} decisions', {n: d.decisions.length})),
        h('ol', {class: 'review-list'}, d.decisions.map(row))) : null,
      h('p', {class: 'coach-note'}, t('Each decision is judged from what you could see then; marked when a quarter point or more below the best, beyond the estimates’ noise.')));
  }

  // The rematch of a finished game is looked for now and then, so every player sees when one
  // of them has asked for it.
  watchRematch() {
    if (this.rematchTimer || this.stopped) return;
    const look = async () => {
      try {
        const r = await api('GET', `/api/tables/${encodeURIComponent(this.id)}/rematch`);
        const before = JSON.stringify(this.rematch);
        this.rematch = r.id ? r : null;
        if (JSON.stringify(this.rematch) !== before) this.render();
      } catch (e) { /* try again later */ }
    };
    look();
    this.rematchTimer = setInterval(look, 3000);
  }

  async askRematch() {
    try {
      const r = await api('POST', `/api/tables/${encodeURIComponent(this.id)}/rematch`);
      navigate(`/t/${r.id}`);
    } catch (e) { this.message = {kind: 'error', text: messageOf(e)}; this.render(); }
  }

  rematchPart() {
    const tb = this.table;
    const mine = this.seat !== null && this.seat !== undefined ? tb.seats[this.seat] : null;
    const player = !!(this.account && mine && mine.kind === 'person' && !mine.left);
    const r = this.rematch && this.rematch.table;
    const names = r ? r.seats.filter((s) => s.kind === 'person').map((s) => displayName(s.name)) : [];
    const meIn = r && this.account && r.seats.some((s) => s.kind === 'person' && s.name === this.account.name);
    const note = r ? h('p', {class: 'rematch-note', 'data-rematch': r.id, role: 'status'},
      r.status === 'open' ? t('{names} want a rematch.', {names: names.join(', ')}) : t('The rematch has started.')) : null;
    let button = null;
    if (player && r && meIn) button = h('a', {class: 'button', href: `/t/${r.id}`, 'data-link': '', 'data-key': 'rematch-go'}, t('Go to the rematch'));
    else if (player && (!r || r.status === 'open')) {
      button = h('button', {type: 'button', 'data-key': 'rematch', onclick: () => this.askRematch()}, r ? t('Join the rematch') : t('Rematch'));
    } else if (r) button = h('a', {class: 'button secondary', href: `/t/${r.id}?watch=1`, 'data-link': ''}, t('Watch the rematch'));
    return {note, button};
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
        // An open seat with a name is kept for that player (a rematch): only they can take it.
        s.kind === 'open' ? h('span', {class: 'muted'}, s.name ? t('kept for {name}', {name: s.name}) : t('open')) : displayName(s.name),
        s.kind === 'bot' ? h('span', {class: 'tag bot'}, t('bot')) : null,
        s.kind === 'open' && canJoin && (!s.name || s.name === this.account.name)
          ? h('button', {type: 'button', 'data-join': s.seat, onclick: () => this.seatAction('join', {seat: s.seat})}, t('Sit here')) : null))),
      !this.account ? h('p', {}, h('a', {href: `/signin?next=/t/${tb.id}`, 'data-link': ''}, t('Sign in or play as a guest to take a seat.'))) : null,
      h('div', {class: 'invite'}, h('label', {}, t('Invite link'), h('input', {readonly: true, value: link, onclick: (e) => e.target.select()})),
        h('button', {type: 'button', class: 'secondary', onclick: () => navigator.clipboard && navigator.clipboard.writeText(link)}, t('Copy'))),
      seated ? h('p', {class: 'muted'}, t('You have seat {n}.', {n: this.seat + 1})) : null);
  }

  results(game, ctx) {
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
        h('td', {class: 'cell-player'}, displayName(tb.seats[s].name)),
        h('td', {class: 'num'}, res.scores ? String(res.scores[s]) : ''),
        h('td', {class: 'num'}, r ? h('span', {}, signed(r.after - r.before, 2), ' ', h('span', {class: 'muted rating-range'}, `(${r.before.toFixed(1)} → ${r.after.toFixed(1)})`)) : '—'),
        h('td', {class: 'num'}, riscos === null || riscos === undefined ? '—' : signed(riscos, 0)));
    });
    const rm = this.rematchPart();
    const mine = this.seat !== null && this.seat !== undefined ? tb.seats[this.seat] : null;
    const reviewable = !tb.rated && mine && mine.kind === 'person' && !mine.left;
    return h('section', {class: 'panel results', 'data-results': '', 'aria-labelledby': 'results-title'},
      h('h2', {id: 'results-title'}, t('Game over')),
      h('table', {class: 'grid results-grid'},
        h('thead', {}, h('tr', {}, h('th', {}, t('Place')), h('th', {}, t('Player')), h('th', {}, t('Score')),
          h('th', {}, t('Rating change')), h('th', {}, t('RISCOS change')))),
        h('tbody', {}, rows)),
      !tb.rated ? h('p', {class: 'muted'}, t('This table was not rated: ratings and RISCOS do not change.')) : null,
      rm.note,
      h('p', {class: 'buttons'}, rm.button,
        h('a', {class: 'button secondary', href: `/api/tables/${tb.id}/record`, download: `${tb.game}-${tb.id}.json`}, t('Download the record')),
        h('a', {class: 'button secondary', href: `/replay?table=${tb.id}`, 'data-link': ''}, t('Watch the replay')),
        h('a', {class: 'button secondary', href: '/', 'data-link': ''}, t('Back to the lobby'))),
      reviewable ? this.reviewPanel(ctx) : null);
  }

  linesPanel() {
    const items = [];
    const start = Math.max(0, this.lines.length - 300);
    const names = this.table.seats.map((s) => s.name); // the server's lines name bots in English
    for (let i = start; i < this.lines.length; i++) {
      const e = this.log[i] || {};
      items.push(h('li', {class: MAJOR.has(e.type) ? 'major' : ''}, withNames(this.lines[i], names)));
    }
    return h('section', {class: 'panel log'}, h('h2', {}, t('What happened')), h('ol', {class: 'lines', 'aria-live': 'polite', tabindex: 0, 'aria-label': t('What happened')}, items));
  }

  // -- the chat ----------------------------------------------------------------------------------
  // One panel made once per table and kept across the table's redraws (drawChat updates it). A line
  // is shown as text (textContent): what a person typed is never read as HTML.
  chatPanel() {
    if (this.chatEl) return this.chatEl;
    this.chatList = el('ol', {class: 'chat-lines', 'aria-live': 'polite', tabindex: 0, 'aria-label': t('Chat')});
    const input = /** @type {HTMLInputElement} */ (el('input', {name: 'chat', maxlength: CHAT_MAX, autocomplete: 'off', 'data-key': 'chat-input',
      'aria-label': t('Your message'), placeholder: t('Say something…')}));
    this.chatInput = input;
    this.chatError = el('p', {class: 'form-error chat-error', role: 'alert'});
    this.chatNote = el('p', {class: 'muted chat-note'});
    this.chatPresets = el('div', {class: 'chat-presets', role: 'group', 'aria-label': t('Phrases')},
      Object.entries(PRESETS).map(([key, text]) => el('button', {type: 'button', class: 'secondary small-btn', 'data-preset': key,
        onclick: () => this.sendChat({preset: key})}, text())));
    this.chatForm = el('form', {class: 'chat-form', onsubmit: (e) => { e.preventDefault(); this.sendChat({text: input.value}); }},
      input, el('button', {type: 'submit', 'data-chat-send': ''}, t('Send')));
    this.chatSignIn = el('p', {class: 'muted'}, el('a', {href: `/signin?next=/t/${encodeURIComponent(this.id)}`, 'data-link': ''}, t('Sign in or play as a guest to chat.')));
    this.chatEl = el('section', {class: 'panel chat', 'data-chat': '', 'aria-labelledby': 'chat-title'},
      el('h2', {id: 'chat-title'}, t('Chat')), this.chatList, this.chatError, this.chatNote, this.chatPresets, this.chatForm, this.chatSignIn);
    return this.chatEl;
  }

  drawChat() {
    if (!this.chatEl || !this.table) return;
    const tb = this.table;
    const list = this.chatList;
    const stick = list.scrollTop + list.clientHeight >= list.scrollHeight - 30;
    const items = this.chat.lines.map((x) => el('li', {'data-seq': x.seq},
      el('strong', {class: 'chat-name'}, x.name), x.seat === null || x.seat === undefined ? el('span', {class: 'tag'}, t('spectator')) : null, ': ',
      el('span', {class: 'chat-text'}, x.preset && PRESETS[x.preset] ? PRESETS[x.preset]() : x.text)));
    if (this.chat.more) items.unshift(el('li', {class: 'muted'}, t('Earlier lines are not shown.')));
    mount(list, items.length ? items : el('li', {class: 'muted chat-empty'}, t('Nothing said yet.')));
    if (stick) list.scrollTop = list.scrollHeight;
    const signedIn = !!this.account;
    const presetsOnly = tb.rated && tb.status === 'running';
    this.chatError.textContent = this.chat.error || '';
    this.chatNote.textContent = presetsOnly ? t('Rated game: only these phrases until the game is over.') : '';
    this.chatPresets.hidden = !signedIn;
    this.chatForm.hidden = !signedIn || presetsOnly;
    this.chatSignIn.hidden = signedIn;
    for (const b of this.chatEl.querySelectorAll('button')) b.setAttribute('aria-disabled', this.chat.pending ? 'true' : 'false');
  }

  sendChat(body) {
    if (this.chat.pending) return;
    const id = `chat-${Date.now().toString(36)}-${(++this.counter).toString(36)}`;
    if (body.text !== undefined) {
      const text = body.text.trim();
      if (!text) { this.chat.error = errorText('chat-empty'); this.drawChat(); return; }
      this.chat.sentText = body.text;
    } else this.chat.sentText = undefined;
    if (!this.send({type: 'chat', id, ...body})) { this.chat.error = t('Connection lost; reconnecting…'); this.drawChat(); return; }
    this.chat.pending = id; this.chat.error = null;
    this.drawChat();
  }
}

// An error's figures: a refused message's params, or the socket limiter's retry_after.
function chatParams(m) {
  if (m.params) return m.params;
  return m.code === 'rate-limited' ? {what: 'socket', retry_after: m.retry_after} : {};
}

export function statusText(s) {
  return {open: t('waiting for players'), running: t('playing'), finished: t('finished'),
    aborted: t('ended: nobody played'), closed: t('closed by the host')}[s] || s;
}

function signed(x, digits) {
  const v = digits ? x.toFixed(digits) : String(Math.round(x));
  return x > 0 ? `+${v}` : v;
}
