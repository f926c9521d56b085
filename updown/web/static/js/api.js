// The server's public HTTP API (docs/server.md). An error's message is in the page's language
// (errors.js, by the answer's code); `english` keeps the server's own words.
import { t } from './i18n.js';
import { errorText } from './errors.js';

export class ApiError extends Error {
  constructor(status, message, code, english) { super(message); this.status = status; this.code = code || null; this.english = english || message; }
}

export async function api(method, path, body) {
  /** @type {RequestInit & {headers: Record<string, string>}} */
  const opts = {method, headers: {}, credentials: 'same-origin'};
  if (body !== undefined) { opts.headers['Content-Type'] = 'application/json'; opts.body = JSON.stringify(body); }
  let r;
  try { r = await fetch(path, opts); } catch (e) { throw new ApiError(0, t('The server cannot be reached.'), 'unreachable'); }
  let data = null;
  try { data = await r.json(); } catch (e) { data = null; }
  if (!r.ok) {
    let english = data && data.detail;
    if (Array.isArray(english)) english = english.map((d) => `${(d.loc || []).slice(1).join('.')}: ${d.msg}`).join('; ');
    english = english || `HTTP ${r.status}`;
    throw new ApiError(r.status, errorText(data && data.code, data && data.params, english), data && data.code, english);
  }
  return data;
}

let meCache;
export async function me(refresh = false) {
  if (meCache !== undefined && !refresh) return meCache;
  try { meCache = await api('GET', '/api/me'); } catch (e) { meCache = null; }
  return meCache;
}
export function forgetMe() { meCache = undefined; }

let gamesCache;
export async function games() {
  if (!gamesCache) gamesCache = await api('GET', '/api/games');
  return gamesCache;
}
