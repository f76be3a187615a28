// Small helpers shared by the page's modules.

export const $ = (id) => document.getElementById(id);
export const key = (r, c) => `${r},${c}`;

// A cell as the page names it to people, everywhere (the boards' labels, the live region, reasons,
// review marks, puzzles): its row and column counted from 1, as the labels beside the board show
// them. The API counts from 0 ([row, col] and "(row,col)" in its texts); the page turns its texts
// into this form with people().
export const cellName = (r, c) => `row ${r + 1} column ${c + 1}`;

// A text from the server for people: each "(row,col)" it names (the API's, from 0) in the page's form.
export function people(text) {
  return String(text ?? "").replace(/\((\d+),(\d+)\)/g, (_, r, c) => cellName(Number(r), Number(c)));
}
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
