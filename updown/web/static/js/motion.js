// Cards' motion on the table: a card played slides from the hand (or from its player's seat) onto
// the trick, and a finished trick slides to its winner when the next one begins. The motion is
// FLIP around each patch of the page (table.js): where things were before it, where they are after,
// and the Web Animations API between the two. Nothing moves for a player whose browser
// asks for reduced motion.
const DURATION = 280;

export function calm() {
  return !!(window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches);
}

// Where the cards and seats are now (before the page is drawn again).
export function measure(root) {
  const rect = (el) => el.getBoundingClientRect();
  const hand = new Map();
  for (const el of root.querySelectorAll('.hand button.hand-card[data-card]')) hand.set(el.dataset.card, rect(el));
  const seats = new Map();
  for (const el of root.querySelectorAll('.felt [data-seat].seat')) seats.set(el.dataset.seat, rect(el));
  const trick = [];
  for (const el of root.querySelectorAll('.trick [data-slot] .card[data-c]')) {
    // A finished trick's cards are copied now: the next frame may draw another card in the same
    // element (the page is patched, not drawn anew), and they fly to the winner as they were.
    const last = el.classList.contains('last');
    trick.push({card: el.dataset.c, slot: el.closest('[data-slot]').dataset.slot, rect: rect(el), node: last ? el.cloneNode(true) : null,
      last, winner: el.classList.contains('winner')});
  }
  return {hand, seats, trick};
}

function centre(r) { return {x: r.left + r.width / 2, y: r.top + r.height / 2}; }

// After drawing: move what is new from where it came from. Returns the number of motions started.
export function animate(root, before) {
  if (!before || calm() || typeof Element.prototype.animate !== 'function') return 0;
  let started = 0;
  const had = new Set(before.trick.map((x) => `${x.slot}:${x.card}`));
  const seats = new Map();
  for (const el of root.querySelectorAll('.felt [data-seat].seat')) seats.set(el.dataset.seat, el.getBoundingClientRect());
  // A card newly on the table: from your hand, or from its player's seat.
  for (const el of root.querySelectorAll('.trick [data-slot] .card[data-c]')) {
    const slot = el.closest('[data-slot]').dataset.slot;
    if (had.has(`${slot}:${el.dataset.c}`)) continue;
    const from = before.hand.get(el.dataset.c) || before.seats.get(slot);
    if (!from) continue;
    const a = centre(from); const b = centre(el.getBoundingClientRect());
    el.animate([{transform: `translate(${a.x - b.x}px, ${a.y - b.y}px) scale(.85)`, opacity: .6}, {transform: 'none', opacity: 1}],
      {duration: DURATION, easing: 'cubic-bezier(.2,.7,.3,1)'});
    started++;
  }
  // A finished trick gone from the table: its cards slide to the winner's seat and fade.
  const gone = before.trick.filter((x) => x.last && !root.querySelector(`.trick [data-slot="${x.slot}"] .card[data-c="${CSS.escape(x.card)}"]`));
  const winner = gone.find((x) => x.winner);
  const to = winner ? seats.get(winner.slot) : null;
  if (to) {
    const layer = document.body;
    for (const x of gone) {
      const ghost = x.node;
      ghost.classList.add('ghost');
      ghost.setAttribute('aria-hidden', 'true');
      Object.assign(ghost.style, {left: `${x.rect.left}px`, top: `${x.rect.top}px`, width: `${x.rect.width}px`, height: `${x.rect.height}px`});
      layer.appendChild(ghost);
      const a = centre(x.rect); const b = centre(to);
      const run = ghost.animate([{transform: 'none', opacity: 1}, {transform: `translate(${b.x - a.x}px, ${b.y - a.y}px) scale(.6)`, opacity: 0}],
        {duration: DURATION + 120, easing: 'ease-in', fill: 'forwards'});
      run.onfinish = () => ghost.remove();
      run.oncancel = () => ghost.remove();
      started++;
    }
  }
  return started;
}
