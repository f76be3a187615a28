// The API client: every request the page makes goes through here.

// GET `path`, or POST `body` as JSON; answers the JSON, or throws an Error carrying the server's
// own message (the API always answers {"error": "..."} on failure).
export async function api(path, body) {
  const opts = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  };
  return answer(await fetch(path, opts));
}

// A response's JSON, or an Error carrying the server's message and the status.
export async function answer(res) {
  let data;
  try { data = await res.json(); } catch { data = { error: `HTTP ${res.status}` }; }
  if (!res.ok) {
    const e = new Error(data.error || `HTTP ${res.status}`);
    e.status = res.status;
    throw e;
  }
  return data;
}
