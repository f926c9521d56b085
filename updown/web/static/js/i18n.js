// The page's strings: msgids are English; /web/i18n/{lang} gives the translations (gettext domain "web").
export const LANGS = [['en', 'English'], ['de', 'Deutsch'], ['pt', 'Português']];
let messages = {};
// The card letters of the page's language, keyed by the notation's (J Q K A): the terminal's table
// (updown.i18n.events.RANK_LETTERS), sent with the strings. English letters are the notation's.
let ranks = {};
export let lang = 'en';

export function preferredLang() {
  const saved = localStorage.getItem('updown.lang');
  if (saved && LANGS.some(([l]) => l === saved)) return saved;
  for (const l of navigator.languages || [navigator.language || 'en']) {
    const code = (l || '').slice(0, 2).toLowerCase();
    if (LANGS.some(([x]) => x === code)) return code;
  }
  return 'en';
}

export async function setLang(code) {
  if (!LANGS.some(([x]) => x === code)) code = 'en';
  let msgs = {};
  let letters = {};
  if (code !== 'en') {
    try {
      const r = await fetch(`/web/i18n/${code}`);
      if (r.ok) { const body = await r.json(); msgs = body.messages; letters = body.ranks || {}; }
    } catch (e) { /* English it is */ }
  }
  messages = msgs; ranks = letters; lang = code;
  localStorage.setItem('updown.lang', code);
  document.documentElement.lang = code;
}

// t(msgid, {name: 'Ana'}) fills {name} in the translation.
export function t(msgid, params) {
  let s = messages[msgid] || msgid;
  if (params) s = s.replace(/\{(\w+)\}/g, (m, k) => (k in params ? String(params[k]) : m));
  return s;
}

// A rank as players of the page's language read it: "Q" -> "D" in German and Portuguese; 2..10 as they are.
export function rankLetter(rank) { return ranks[rank] || rank; }
