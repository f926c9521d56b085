// Turn alerts: the tab's title says when it is your turn; a short sound (off until you turn it on)
// and a browser notification while the tab is hidden (permission asked only when you click).
// Both choices are remembered in localStorage.
import { t } from './i18n.js';

const SOUND = 'updown.sound';
const NOTIFY = 'updown.notify';

export function soundOn() { return localStorage.getItem(SOUND) === '1'; }
export function setSound(on) { localStorage.setItem(SOUND, on ? '1' : '0'); }

export function notifySupported() { return typeof window.Notification === 'function'; }
export function notifyPermission() { return notifySupported() ? window.Notification.permission : 'denied'; }
export function notifyOn() { return localStorage.getItem(NOTIFY) === '1' && notifyPermission() === 'granted'; }

// Called from a click only: browsers ask the player, never on their own.
export async function setNotify(on) {
  if (on && notifySupported() && window.Notification.permission === 'default') {
    try { await window.Notification.requestPermission(); } catch (e) { /* an old browser: no */ }
  }
  localStorage.setItem(NOTIFY, on && notifyPermission() === 'granted' ? '1' : '0');
  return notifyOn();
}

let audio = null;
// A short two-note chime from the Web Audio API (no file to load). Returns true if it played.
export function chime() {
  const Ctx = window.AudioContext || /** @type {any} */ (window).webkitAudioContext; // older Safari
  if (!Ctx) return false;
  try {
    audio = audio || new Ctx();
    const now = audio.currentTime;
    for (const [freq, at] of [[660, 0], [880, 0.13]]) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, now + at);
      gain.gain.exponentialRampToValueAtTime(0.18, now + at + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + at + 0.22);
      osc.connect(gain).connect(audio.destination);
      osc.start(now + at);
      osc.stop(now + at + 0.25);
    }
    return true;
  } catch (e) { return false; }
}

// A notification while the page is hidden; a click on it brings the table back.
export function notifyTurn(gameName, tag) {
  if (!notifyOn() || document.visibilityState !== 'hidden') return null;
  try {
    const n = new window.Notification(t('Your turn'), {body: t('{game}: it is your turn to play.', {game: gameName}), tag});
    n.onclick = () => { window.focus(); n.close(); };
    return n;
  } catch (e) { return null; }
}

export function turnTitle(myTurn, gameName) {
  return myTurn ? `● ${t('Your turn')} — updown` : (gameName ? `${gameName} — updown` : 'updown');
}
