// Calls the console's JSON API (/console/api/…): the session cookie goes along by itself (HttpOnly,
// SameSite=Strict); every change carries the session's anti-forgery token in X-CSRF-Token.
let csrfToken = null;

export function setSession(session) {
  csrfToken = session ? session.csrfToken : null;
}

export class APIError extends Error {
  constructor(status, data) {
    super((data && (data.reason || data.serverErrorCode)) || `HTTP ${status}`);
    this.status = status;
    this.data = data;
  }
}

export async function api(path, { method = 'GET', body } = {}) {
  const headers = {};
  if (method !== 'GET') {
    headers['Content-Type'] = 'application/json';
    if (csrfToken) headers['X-CSRF-Token'] = csrfToken;
  }
  const response = await fetch('/console/api' + path, {
    method, headers, credentials: 'same-origin',
    body: body === undefined ? (method === 'GET' ? undefined : '{}') : JSON.stringify(body),
  });
  const text = await response.text();
  let data = text;
  try { data = text ? JSON.parse(text) : null; } catch { /* plain text, such as metrics */ }
  if (!response.ok) throw new APIError(response.status, data);
  return data;
}

// A CloudKit request answered by the server's own service, as the administrator.
export function cloudKit(target, operation, body) {
  const { container, environment, database, user } = target;
  const query = database !== 'public' && user ? `?user=${encodeURIComponent(user)}` : '';
  const path = `/database/${encodeURIComponent(container)}/${environment}/${database}/${operation}${query}`;
  return api(path, { method: 'POST', body });
}
