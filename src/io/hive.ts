/**
 * Hive-style partition folders (`date=2024-01-01/region=eu/part-0.parquet`), both ways.
 *
 * Path text: a segment is `key=value` with the value percent-encoded where a path could not
 * hold it (control characters, `/ \ " # % ' * : = ? [ ] ^ { }`, as Hive and Spark escape);
 * NULL (and the empty string, which Hive cannot tell from NULL) is `__HIVE_DEFAULT_PARTITION__`.
 *
 * Reading: the keys of a dataset are typed from all of their values across its files, as
 * DuckDB's and Polars' hive readers do: int64 when every value is an integer, date32 when every
 * one is a date (`YYYY-MM-DD`), timestamp[us] when every one is a date or a timestamp without
 * offset (timestamp[us, UTC] when every one has an offset), otherwise utf8. Each file's batches
 * get one constant column per key, appended after the file's own columns.
 *
 * Writing: the text of a value is what CSV prints for it (io/text), encoded as above.
 */
import { Data, DateDay, Field, Int64, Timestamp, TimeUnit, Utf8, type DataType } from 'apache-arrow';
import { gatherData } from '../columns/gather.js';
import { makeFiller } from './csv-columns.js';
import { parseDate, parseTimestamp } from './temporal-text.js';

export const HIVE_NULL = '__HIVE_DEFAULT_PARTITION__';

const UNSAFE = /[\u0000-\u001f\u007f"#%'*/:=?[\\\]^{}]/g;

export function encodeHiveValue(text: string | null): string {
  if (text === null || text === '') return HIVE_NULL;
  const out = text.replace(UNSAFE, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  return out === '.' || out === '..' ? out.replaceAll('.', '%2E') : out;
}

export function decodeHiveValue(text: string): string | null {
  if (text === HIVE_NULL) return null;
  return text.replace(/%([0-9A-Fa-f]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
}

/** The `key=value` segments of a path relative to its dataset root, in order; keys decoded. */
export function hiveSegments(relative: string): Array<[string, string | null]> {
  const parts = relative.split('/').slice(0, -1);
  const out: Array<[string, string | null]> = [];
  for (const p of parts) {
    const eq = p.indexOf('=');
    if (eq <= 0) continue;
    out.push([decodeHiveValue(p.slice(0, eq)) ?? '', decodeHiveValue(p.slice(eq + 1))]);
  }
  return out;
}

const INT_RE = /^[+-]?\d{1,19}$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const OFFSET_RE = /(Z|z|[+-]\d{2}(:?\d{2})?)$/;

/** The type of a Hive key from all of its values (see the header comment). */
export function inferHiveType(values: Iterable<string | null>): DataType {
  let int = true;
  let date = true;
  let ts = true;
  let zoned = 0;
  let n = 0;
  for (const v of values) {
    if (v === null) continue;
    n++;
    if (int && !(INT_RE.test(v) && BigInt(v) >= INT64_MIN && BigInt(v) <= INT64_MAX)) int = false;
    if (date && parseDate(v) === null) date = false;
    if (ts && parseTimestamp(v, 'us') === null) {
      if (v.length > 10 && OFFSET_RE.test(v)) zoned++;
    } else ts = false;
  }
  if (n === 0) return new Utf8();
  if (int) return new Int64();
  if (date) return new DateDay();
  if (ts && (zoned === 0 || zoned === n)) return new Timestamp(TimeUnit.MICROSECOND, zoned > 0 ? 'UTC' : null);
  return new Utf8();
}

/** Fields for Hive keys typed from their values. */
export function hiveFields(keys: string[], valuesOf: (key: string) => Iterable<string | null>): Field[] {
  return keys.map((k) => new Field(k, inferHiveType(valuesOf(k)), true));
}

/** A column of `length` copies of `value` (NULL when null) of `type`. */
export function constantColumn(type: DataType, value: string | null, length: number): Data {
  const one = makeFiller(type, 1, 'hive key');
  if (value === null) one.setNull(0);
  else {
    const err = one.set(0, value);
    if (err !== null) throw new Error(`internal: hive value ${value} is ${err}`);
  }
  return gatherData(one.finish(1), new Int32Array(length), length, (ctor, n) => new ctor(n));
}
