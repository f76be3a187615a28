// Where the player's record lives: in this browser (IndexedDB), or on the server under an anonymous
// token (/api/players, see demine/web/records.py). Both stores have the same methods:
//   list() -> records, add(view) -> record or null, remove(id), clear(), where
// The choice and the token are kept in this browser's localStorage.

import { answer, ownerHeader } from "../api.js";
import { recordFromView } from "./records.js";

const DB = "demine";
const STORE = "games";
const WHERE = "demine.record.where";
const TOKEN = "demine.record.token";
const PENDING = "demine.record.pending";

function request(req) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

let opened = null;
function database() {
  if (!opened) {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => {
      const os = req.result.createObjectStore(STORE, { keyPath: "id" });
      os.createIndex("ended", "ended");
    };
    opened = request(req);
    opened.catch(() => { opened = null; });
  }
  return opened;
}

async function tx(mode, fn) {
  const db = await database();
  const t = db.transaction(STORE, mode);
  const out = fn(t.objectStore(STORE));
  await new Promise((resolve, reject) => {
    t.oncomplete = resolve;
    t.onerror = () => reject(t.error);
    t.onabort = () => reject(t.error || new Error("the browser's store refused the change"));
  });
  return out instanceof IDBRequest ? out.result : out;
}

// The record in this browser's IndexedDB.
export const browserStore = {
  where: "browser",
  async list() { return tx("readonly", (os) => os.getAll()); },
  async add(view) {
    const rec = recordFromView(view);
    if (rec) await tx("readwrite", (os) => os.put(rec));
    return rec;
  },
  async put(records) { await tx("readwrite", (os) => { for (const r of records) os.put(r); }); },
  async remove(id) { await tx("readwrite", (os) => os.delete(id)); },
  async clear() { await tx("readwrite", (os) => os.clear()); },
};

const pause = (s) => new Promise((resolve) => setTimeout(resolve, 1000 * s));

// A request with the token (and this browser's key: the server adds to the record only the games
// this browser made); a 429 is waited out (its Retry-After, at most 5 s) and asked twice more.
async function call(method, path, body) {
  const headers = { Authorization: `Bearer ${localStorage.getItem(TOKEN) || ""}`, ...ownerHeader() };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let res;
  for (let tries = 0; ; tries++) {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    if (res.status !== 429 || tries === 2) break;
    await pause(Math.min(5, Number(res.headers.get("retry-after")) || 1));
  }
  return answer(res);
}

function pending() {
  try { return JSON.parse(localStorage.getItem(PENDING) || "[]"); } catch { return []; }
}

// The record on the server. A game that could not be sent (offline, too many requests) waits in
// localStorage and is sent with the next one.
export const serverStore = {
  where: "server",
  token() { return localStorage.getItem(TOKEN); },
  setToken(token) { localStorage.setItem(TOKEN, token); },
  forget() { localStorage.removeItem(TOKEN); localStorage.removeItem(PENDING); },
  async create() {
    const made = await call("POST", "/api/players");
    this.setToken(made.token);
    return made;
  },
  async about() { return call("GET", "/api/players/me"); },
  async list() { return (await call("GET", "/api/players/me/games")).games; },
  async send(ids) {
    const out = { added: [], missing: [], refused: [] };
    for (let i = 0; i < ids.length; i += 100) {
      const part = await call("POST", "/api/players/me/games", { games: ids.slice(i, i + 100) });
      out.added.push(...part.added);
      out.missing.push(...part.missing);
      out.refused.push(...(part.refused || []));
    }
    return out;
  },
  // The record of this game once on the server; null when the server refused it (another browser
  // made it: a shared link), or no longer has it.
  async add(view) {
    const ids = [...new Set([...pending(), view.id])];
    localStorage.setItem(PENDING, JSON.stringify(ids));
    const out = await this.send(ids);
    localStorage.removeItem(PENDING);  // sent, refused or gone from the server: nothing to retry
    return out.added.find((r) => r.id === view.id) || null;
  },
  async remove(id) { await call("DELETE", `/api/players/me/games/${encodeURIComponent(id)}`); },
  async clear() { await call("DELETE", "/api/players/me"); this.forget(); },
};

export async function keeps() {
  return call("GET", "/api/players/keeps");
}

export function chosen() {
  return localStorage.getItem(WHERE) === "server" && serverStore.token() ? serverStore : browserStore;
}

export function choose(where) {
  localStorage.setItem(WHERE, where);
}
