// The server's public HTTP API (docs/server.md).
export class ApiError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

export async function api(method, path, body) {
  const opts = {method, headers: {}, credentials: 'same-origin'};
  if (body !== undefined) { opts.headers['Content-Type'] = 'application/json'; opts.body = JSON.stringify(body); }
  let r;
  try { r = await fetch(path, opts); } catch (e) { throw new ApiError(0, 'the server cannot be reached'); }
  let data = null;
  try { data = await r.json(); } catch (e) { data = null; }
  if (!r.ok) {
    let msg = data && data.detail;
    if (Array.isArray(msg)) msg = msg.map((d) => `${(d.loc || []).slice(1).join('.')}: ${d.msg}`).join('; ');
    throw new ApiError(r.status, msg || `HTTP ${r.status}`);
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
