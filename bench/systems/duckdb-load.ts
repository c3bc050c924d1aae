/**
 * Arrow table -> DuckDB table through the appender, as fast as Node allows: fixed-width
 * buffers and validity bitmaps copied in bulk into each 2048-row data chunk
 * (`copy_data_to_vector*` of @duckdb/node-bindings), strings assigned one by one without UTF-8
 * decoding, list vectors as entries + child vectors. DuckDB has no Arrow IPC reader without a
 * community extension (network), and node-api exposes no Arrow import, so this is the way in
 * for in-memory Arrow data.
 */
import duckdb from '@duckdb/node-bindings';
import type { DuckDBConnection } from '@duckdb/node-api';
import { type Data, type DataType, type Field, type Table, Type } from 'apache-arrow';

const VECTOR = 2048;

function logicalType(t: DataType): duckdb.LogicalType {
  if (t.typeId === Type.Int) return duckdb.create_logical_type((t as unknown as { bitWidth: number }).bitWidth === 64 ? duckdb.Type.BIGINT : duckdb.Type.INTEGER);
  if (t.typeId === Type.Float) return duckdb.create_logical_type(duckdb.Type.DOUBLE);
  if (t.typeId === Type.Utf8) return duckdb.create_logical_type(duckdb.Type.VARCHAR);
  if (t.typeId === Type.List) return duckdb.create_list_type(logicalType((t.children[0] as Field).type));
  throw new Error(`duckdb appender: unsupported Arrow type ${t}`);
}

function sqlType(t: DataType): string {
  if (t.typeId === Type.Int) return (t as unknown as { bitWidth: number }).bitWidth === 64 ? 'BIGINT' : 'INTEGER';
  if (t.typeId === Type.Float) return 'DOUBLE';
  if (t.typeId === Type.Utf8) return 'VARCHAR';
  if (t.typeId === Type.List) return `${sqlType((t.children[0] as Field).type)}[]`;
  throw new Error(`duckdb appender: unsupported Arrow type ${t}`);
}

const entries = new Uint32Array(VECTOR * 4); // duckdb_list_entry { uint64 offset, uint64 length }

/** rows [start, start + count) of `d` into `vec` rows [0, count) */
function fill(vec: duckdb.Vector, d: Data, start: number, count: number): void {
  if (d.nullCount > 0 && d.nullBitmap && d.nullBitmap.length) {
    duckdb.vector_ensure_validity_writable(vec);
    const bm = d.nullBitmap; const bit = d.offset + start;
    if ((bit & 7) === 0) {
      duckdb.copy_data_to_vector_validity(vec, 0, bm.buffer as ArrayBuffer, bm.byteOffset + (bit >> 3), (count + 7) >> 3);
    } else {
      const v = duckdb.vector_get_validity(vec, ((count + 63) >> 6) * 8);
      for (let i = 0; i < count; i++) { const j = bit + i; if (!((bm[j >> 3]! >> (j & 7)) & 1)) duckdb.validity_set_row_invalid(v, i); }
    }
  }
  const t = d.type.typeId;
  if (t === Type.Int || t === Type.Float) {
    const v = d.values as unknown as ArrayBufferView & { BYTES_PER_ELEMENT: number };
    duckdb.copy_data_to_vector(vec, 0, v.buffer as ArrayBuffer, v.byteOffset + (d.offset + start) * v.BYTES_PER_ELEMENT, count * v.BYTES_PER_ELEMENT);
  } else if (t === Type.Utf8) {
    const o = d.valueOffsets as Int32Array; const b = d.values as Uint8Array; const base = d.offset + start;
    for (let i = 0; i < count; i++) duckdb.vector_assign_string_element_len(vec, i, b.subarray(o[base + i]!, o[base + i + 1]!));
  } else if (t === Type.List) {
    const o = d.valueOffsets as Int32Array; const base = d.offset + start;
    const c0 = o[base]!; const children = o[base + count]! - c0;
    for (let i = 0; i < count; i++) {
      entries[4 * i] = o[base + i]! - c0; entries[4 * i + 1] = 0;
      entries[4 * i + 2] = o[base + i + 1]! - o[base + i]!; entries[4 * i + 3] = 0;
    }
    duckdb.copy_data_to_vector(vec, 0, entries.buffer, 0, count * 16);
    duckdb.list_vector_reserve(vec, children);
    duckdb.list_vector_set_size(vec, children);
    fill(duckdb.list_vector_get_child(vec), d.children[0]!, c0, children);
  } else throw new Error(`duckdb appender: unsupported Arrow type ${d.type}`);
}

/** node-api keeps its raw binding connection in a private field; the appender needs it */
const rawConnection = (conn: DuckDBConnection): duckdb.Connection => (conn as unknown as { connection: duckdb.Connection }).connection;

export async function appendArrowTable(conn: DuckDBConnection, name: string, table: Table): Promise<void> {
  const fields = table.schema.fields;
  await conn.run(`CREATE OR REPLACE TABLE "${name}" (${fields.map((f) => `"${f.name}" ${sqlType(f.type)}`).join(', ')})`);
  const appender = duckdb.appender_create(rawConnection(conn), null, name);
  const types = fields.map((f) => logicalType(f.type));
  for (const batch of table.batches) {
    const cols = batch.data.children;
    for (let off = 0; off < batch.numRows; off += VECTOR) {
      const n = Math.min(VECTOR, batch.numRows - off);
      const chunk = duckdb.create_data_chunk(types);
      for (let c = 0; c < cols.length; c++) fill(duckdb.data_chunk_get_vector(chunk, c), cols[c]!, off, n);
      duckdb.data_chunk_set_size(chunk, n);
      duckdb.append_data_chunk(appender, chunk);
    }
  }
  duckdb.appender_flush_sync(appender);
  duckdb.appender_close_sync(appender);
}
