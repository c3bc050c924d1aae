/**
 * The CLI's text outputs, fed batch by batch: CSV, TSV, JSON (one array), NDJSON (one object
 * per line) and the table view. Cell texts come from the shared value-to-text layer
 * (src/io/text): exact values in CSV/TSV/JSON/NDJSON, display precision for floats in the table
 * view only.
 *
 * The table view (cli-table3) keeps only what it shows: the first rows (rendered as they come)
 * and the batches that may hold the last rows. It shows column names with their types, the
 * rows, a `…` row where rows were left out, and `N rows (M shown), K columns` under it. When
 * the table is wider than `maxWidth`, middle columns are hidden behind a `…` column (as DuckDB
 * does), keeping columns from both ends, and the footer says `K columns (J shown)`.
 */
import Table from 'cli-table3';
import { Type, type RecordBatch, type Schema } from 'apache-arrow';
import { cellText } from '../io/text/cells.js';
import { delimitedChunks, delimitedHeader } from '../io/text/delimited.js';
import { jsonChunks } from '../io/text/json-rows.js';
import { typeName } from '../io/text/type-names.js';

/** Where rendered text goes; `write` resolves when the destination can take more. */
export interface TextSink {
  write(text: string): Promise<void> | void;
}

/** A text output format consuming a stream of batches. */
export interface TextWriter {
  /** Everything before the first batch (e.g. the CSV header). */
  start(schema: Schema): Promise<void>;
  write(batch: RecordBatch): Promise<void>;
  /** Everything after the last batch (the closing bracket, the table view). */
  finish(): Promise<void>;
}

export type TextFormat = 'csv' | 'tsv' | 'json' | 'ndjson' | 'table';

export interface TextWriterOptions {
  /** table view: rows shown at most, half from the head, half from the tail */
  maxRows: number;
  /** table view: width to fit in characters (0 = no limit) */
  maxWidth: number;
  /** table view: colours (header, borders, dim NULLs), only on a terminal */
  color: boolean;
}

export function textWriter(format: TextFormat, sink: TextSink, opts: TextWriterOptions): TextWriter {
  switch (format) {
    case 'csv':
    case 'tsv': {
      const delimiter = format === 'csv' ? ',' : '\t';
      return {
        start: async (schema) => void (await sink.write(delimitedHeader(schema, delimiter))),
        async write(batch) {
          for (const chunk of delimitedChunks(batch, delimiter)) await sink.write(chunk);
        },
        finish: async () => {},
      };
    }
    case 'ndjson':
      return {
        start: async () => {},
        async write(batch) {
          for (const chunk of jsonChunks(batch, (o) => `${o}\n`)) await sink.write(chunk);
        },
        finish: async () => {},
      };
    case 'json': {
      let rows = 0;
      return {
        start: async () => {},
        async write(batch) {
          const before = rows;
          for (const chunk of jsonChunks(batch, (o, i) => `${before + i === 0 ? '[\n' : ',\n'}${o}`)) await sink.write(chunk);
          rows += batch.numRows;
        },
        finish: async () => void (await sink.write(rows === 0 ? '[]\n' : '\n]\n')),
      };
    }
    case 'table': {
      let view: TableView | undefined;
      return {
        start: async (schema) => void (view = new TableView(schema, opts)),
        write: async (batch) => view!.add(batch),
        finish: async () => void (await sink.write(view!.render())),
      };
    }
  }
}

// ---- table view ------------------------------------------------------------------------------

export interface TableViewOptions {
  /** Rows shown at most: half from the head, half from the tail (default 20). */
  maxRows?: number;
  /** Only the first rows (no tail), e.g. for the demo. */
  headOnly?: boolean;
  /** Width to fit in characters; 0 or undefined = no limit. */
  maxWidth?: number;
  /** Colours (header, borders, dim NULLs): only on a TTY. */
  color?: boolean;
  /** Longest cell text before it is cut with '…' (default 40). */
  maxCellWidth?: number;
}

const NUMERIC = new Set<Type>([Type.Int, Type.Float, Type.Decimal, Type.Duration]);
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;
const MARKER = '…';

export class TableView {
  private readonly head: number;
  private readonly tail: number;
  private headRows: string[][] = [];
  /** recent batches whose rows may be in the tail */
  private tailBatches: RecordBatch[] = [];
  private tailBatchRows = 0;
  /** rows seen (settable: the demo shows the head of a table it did not feed in full) */
  total = 0;

  constructor(
    private readonly schema: Schema,
    private readonly opts: TableViewOptions = {},
  ) {
    const max = Math.max(0, opts.maxRows ?? 20);
    this.head = opts.headOnly ? max : Math.ceil(max / 2);
    this.tail = opts.headOnly ? 0 : max - this.head;
  }

  add(batch: RecordBatch): void {
    const n = batch.numRows;
    if (n === 0) return;
    this.total += n;
    if (this.headRows.length < this.head) {
      const take = Math.min(n, this.head - this.headRows.length);
      this.headRows.push(...this.renderRows(batch, 0, take));
      if (take === n) return;
      batch = batch.slice(take, n);
    }
    if (this.tail === 0) return;
    this.tailBatches.push(batch);
    this.tailBatchRows += batch.numRows;
    while (this.tailBatches.length > 1 && this.tailBatchRows - this.tailBatches[0]!.numRows >= this.tail) {
      this.tailBatchRows -= this.tailBatches.shift()!.numRows;
    }
  }

  private renderRows(batch: RecordBatch, from: number, to: number): string[][] {
    const color = this.opts.color === true;
    const width = this.opts.maxCellWidth ?? 40;
    const cells = batch.data.children.map((d) => cellText(d, { syntax: 'field', floats: 'display' }));
    const out: string[][] = [];
    for (let i = from; i < to; i++) {
      out.push(
        cells.map((cell) => {
          const s = cell(i);
          if (s === null) return color ? '\x1b[2mnull\x1b[22m' : 'null';
          return clip(s, width);
        }),
      );
    }
    return out;
  }

  /** Rows of the tail, in order. */
  private tailRows(): string[][] {
    const rows: string[][] = [];
    let skip = this.tailBatchRows - Math.min(this.tail, this.total - this.headRows.length);
    for (const b of this.tailBatches) {
      if (skip >= b.numRows) {
        skip -= b.numRows;
        continue;
      }
      rows.push(...this.renderRows(b, skip, b.numRows));
      skip = 0;
    }
    return rows;
  }

  render(): string {
    const fields = this.schema.fields;
    const rows = [...this.headRows];
    const tail = this.tailRows();
    const shown = this.headRows.length + tail.length;
    const gap = shown < this.total;
    if (gap) rows.push(fields.map(() => MARKER));
    rows.push(...tail);

    const all = fields.map((_f, c) => c);
    let text = fields.length > 0 ? this.draw(all, rows) : '(no columns)';
    let kept = all;
    const maxWidth = this.opts.maxWidth ?? 0;
    if (maxWidth > 0 && fields.length > 1 && lineWidth(text) > maxWidth) {
      kept = fitColumns(columnWidths(text), maxWidth);
      text = this.draw(kept, rows);
    }
    const n = this.total.toLocaleString('en-US');
    const footer = gap ? `${n} rows (${shown.toLocaleString('en-US')} shown)` : `${n} row${this.total === 1 ? '' : 's'}`;
    let cols = `${fields.length} column${fields.length === 1 ? '' : 's'}`;
    if (kept.length < fields.length) cols += ` (${kept.length} shown)`;
    return `${text}\n${footer}, ${cols}\n`;
  }

  /** The table with the columns `kept` (indices in order; a `…` column where some are left out). */
  private draw(kept: number[], rows: string[][]): string {
    const color = this.opts.color === true;
    const fields = this.schema.fields;
    const cols: Array<number | null> = [];
    kept.forEach((c, k) => {
      if (k > 0 && c !== kept[k - 1]! + 1) cols.push(null);
      cols.push(c);
    });
    const dim = (s: string): string => (color ? `\x1b[2m${s}\x1b[22m` : s);
    const table = new Table({
      head: cols.map((c) => (c === null ? MARKER : `${fields[c]!.name}\n${dim(typeName(fields[c]!.type))}`)),
      style: color ? { head: ['cyan'], border: ['grey'] } : { head: [], border: [] },
      colAligns: cols.map((c) => (c !== null && NUMERIC.has(fields[c]!.type.typeId) ? 'right' : 'left')),
      wordWrap: false,
    });
    for (const r of rows) table.push(cols.map((c) => (c === null ? MARKER : r[c]!)));
    return onlyHeaderRule(table.toString());
  }
}

/** Width of the table: its top border line (box characters are one column each). */
function lineWidth(text: string): number {
  return text.slice(0, text.indexOf('\n') >>> 0).replace(ANSI, '').length;
}

/** Widths of each column including one border character, from the top border `┌──┬───┐`. */
function columnWidths(text: string): number[] {
  const top = text.slice(0, text.indexOf('\n') >>> 0).replace(ANSI, '');
  return top
    .slice(1, -1)
    .split('┬')
    .map((seg) => seg.length + 1);
}

/**
 * Columns to keep within `maxWidth`: alternately from the left and the right end, as long as
 * they fit next to the `…` column (3 + 1 wide). At least the first column.
 */
export function fitColumns(widths: number[], maxWidth: number): number[] {
  const budget = maxWidth - 1 - 4;
  const left: number[] = [];
  const right: number[] = [];
  let used = 0;
  let l = 0;
  let r = widths.length - 1;
  let fromLeft = true;
  while (l <= r) {
    const c = fromLeft ? l : r;
    if (used + widths[c]! > budget) break;
    used += widths[c]!;
    if (fromLeft) left.push(l++);
    else right.unshift(r--);
    fromLeft = !fromLeft;
  }
  if (left.length === 0) left.push(0);
  return [...left, ...right];
}

/** cli-table3 draws a rule between every two rows: keep only the one under the header. */
function onlyHeaderRule(text: string): string {
  let seen = false;
  return text
    .split('\n')
    .filter((line) => {
      if (!line.replace(ANSI, '').startsWith('├')) return true;
      if (seen) return false;
      seen = true;
      return true;
    })
    .join('\n');
}

function clip(s: string, width: number): string {
  const flat = s.includes('\n') || s.includes('\r') || s.includes('\t') ? s.replace(/\r?\n|\r/g, '\\n').replaceAll('\t', '\\t') : s;
  return flat.length > width ? `${flat.slice(0, Math.max(1, width - 1))}…` : flat;
}

/** Render a whole table (or list of batches) as the table view. */
export function renderTable(schema: Schema, batches: Iterable<RecordBatch>, opts: TableViewOptions = {}): string {
  const view = new TableView(schema, opts);
  for (const b of batches) view.add(b);
  return view.render();
}
