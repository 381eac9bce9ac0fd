// What a terminal of a given width does with the bytes a program wrote, reduced to the one thing
// the spinner tests need: where a line ran past the right edge and wrapped. Cursor moves, erases
// and colours are followed as a VT100 would; printable characters advance the cursor by their
// display width.

/** Columns of one character, as a terminal counts them (its own rule, independent of the code under test). */
const displayWidth = (ch: string): number =>
  /\p{Mn}|\p{Me}|\u200b|\u200c|\u200d|\ufe0f/u.test(ch) ? 0 : /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]|[\u{1f300}-\u{1faff}\u{20000}-\u{3fffd}]/u.test(ch) ? 2 : 1;

const TOKEN = /\x1b\[([0-?]*)[ -/]*([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]|\x1b.|[\s\S]/gu;

/** Each line that wrapped at `cols` columns, as far as it was written when it wrapped. */
export function wrappedLines(raw: string, cols: number): string[] {
  const wraps: string[] = [];
  let col = 0;
  let line = '';
  for (const m of raw.matchAll(TOKEN)) {
    const t = m[0];
    if (m[2] !== undefined) {
      const params = (m[1] ?? '').split(';').map((p) => Number(p.replace(/^\?/, '')) || 0);
      const n = params[0] || 1;
      switch (m[2]) {
        case 'G': col = n - 1; line = ''; break;
        case 'H': case 'f': col = (params[1] || 1) - 1; line = ''; break;
        case 'C': col += n; break;
        case 'D': col = Math.max(0, col - n); break;
        case 'E': case 'F': col = 0; line = ''; break;
      }
      continue;
    }
    if (t.startsWith('\x1b')) continue;
    if (t === '\r' || t === '\n') {
      col = 0;
      line = '';
      continue;
    }
    if (t === '\b') {
      col = Math.max(0, col - 1);
      continue;
    }
    if (t === '\t') {
      col = Math.min(cols - 1, (Math.floor(col / 8) + 1) * 8);
      continue;
    }
    if (t < ' ' || t === '\x7f') continue;
    const w = displayWidth(t);
    if (w === 0) continue;
    if (col + w > cols) {
      wraps.push(line);
      col = 0;
      line = '';
    }
    col += w;
    line += t;
  }
  return wraps;
}
