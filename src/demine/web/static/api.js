// The API client: every request the page makes goes through here.

// The longest pause after a 429 that api() waits out by itself (seconds).
const RETRY_SECONDS = 2;

// GET `path`, or POST `body` as JSON (with `headers` besides); answers the JSON, or throws an
// Error carrying the server's own message (the API always answers {"error": "..."} on failure).
// Past a rate (429) whose pause is short (RETRY_SECONDS or less) the request is sent once more
// after that pause: a burst of the page's own requests (Restart, New game, a link that starts a
// new game) comes through late rather than not at all. A longer pause is the player's to see.
export async function api(path, body, headers = {}) {
  const opts = body === undefined ? { headers } : {
    method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body),
  };
  let res = await fetch(path, opts);
  const pause = Number(res.headers.get("retry-after"));
  if (res.status === 429 && pause > 0 && pause <= RETRY_SECONDS) {
    await new Promise((done) => setTimeout(done, pause * 1000));
    res = await fetch(path, opts);
  }
  return answer(res);
}

const OWNER = "demine.owner";
let unkept = null;

// This browser's key: a secret drawn once and kept in localStorage, sent when the page makes a game
// and when it adds games to the player's record on the server, which takes only the games this
// browser made (demine/web/records.py). Without storage, a key for this page's life.
export function ownerKey() {
  const draw = () => {
    const bytes = crypto.getRandomValues(new Uint8Array(32));
    return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  };
  try {
    let k = localStorage.getItem(OWNER);
    if (!k) {
      k = draw();
      localStorage.setItem(OWNER, k);
    }
    return k;
  } catch {
    unkept = unkept || draw();
    return unkept;
  }
}

// The header that says this browser made the game (see ownerKey).
export function ownerHeader() {
  return { "X-Demine-Owner": ownerKey() };
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
