/**
 * A tiny terminal emulator for tests: the screen left by a stream of text with \r, \n and the
 * CSI sequences the CLI uses (cursor up `ESC[nA`, erase below `ESC[0J`, erase line `ESC[2K`;
 * colours and other sequences are ignored). Characters are one column each.
 */
export function screen(text: string): string[] {
  const lines: string[] = [''];
  let row = 0;
  let col = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '\x1b') {
      const m = /^\x1b\[([?0-9;]*)([A-Za-z])/.exec(text.slice(i));
      if (!m) continue;
      const n = Number(m[1] || 1);
      if (m[2] === 'A') row = Math.max(0, row - n);
      else if (m[2] === 'J') {
        lines.length = row + 1;
        lines[row] = lines[row]!.slice(0, col);
      } else if (m[2] === 'K') lines[row] = m[1] === '2' ? '' : lines[row]!.slice(0, col);
      i += m[0].length - 1;
    } else if (ch === '\r') col = 0;
    else if (ch === '\n') {
      row++;
      col = 0;
      while (lines.length <= row) lines.push('');
    } else {
      const l = lines[row]!.padEnd(col);
      lines[row] = l.slice(0, col) + ch + l.slice(col + 1);
      col++;
    }
  }
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}
