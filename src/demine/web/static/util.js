// Small helpers shared by the page's modules.

export const $ = (id) => document.getElementById(id);
export const key = (r, c) => `${r},${c}`;
// The keys that move a board's cursor.
export const MOVES = {
  ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1],
  k: [-1, 0], j: [1, 0], h: [0, -1], l: [0, 1],
};

export const GLYPH = { flag: "⚑", safe: "✓", mine: "✱", best: "★", bomb: "●" };

export function download(name, blob) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

export function b64bytes(text) {
  return Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0));
}

// The words for a best guess (or the best first click) from the server's hint.
export function bestText(b) {
  if (b.reason === "first-click") return `Best first click: ${b.text}`;
  const more = b.outlook ? `, ${b.outlook}` : "";
  return `No safe cell: best guess (${b.reason}), ${(100 * b.mine_probability).toFixed(1)}% risk${more}`;
}
