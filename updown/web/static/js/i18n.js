// The page's strings: msgids are English; /web/i18n/{lang} gives the translations (gettext domain "web").
export const LANGS = [['en', 'English'], ['de', 'Deutsch'], ['pt', 'Português']];
let messages = {};
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
  if (code !== 'en') {
    try {
      const r = await fetch(`/web/i18n/${code}`);
      if (r.ok) msgs = (await r.json()).messages;
    } catch (e) { /* English it is */ }
  }
  messages = msgs; lang = code;
  localStorage.setItem('updown.lang', code);
  document.documentElement.lang = code;
}

// t(msgid, {name: 'Ana'}) fills {name} in the translation.
export function t(msgid, params) {
  let s = messages[msgid] || msgid;
  if (params) s = s.replace(/\{(\w+)\}/g, (m, k) => (k in params ? String(params[k]) : m));
  return s;
}
