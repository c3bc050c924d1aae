/**
 * Messages between the coordinator and the workers: plain data only (structured clone).
 * Column data travels as descriptors of SharedArrayBuffer regions, never as copies.
 *
 * Every task that allocates temporaries gets a `scratch` loan: a pooled SharedArrayBuffer the
 * coordinator reserved against the memory budget for the task's duration (src/worker/scratch).
 * Replies report how much of it they used, so the next loan is sized from measurements.
 *
 * The plan shapes tasks carry (ResolvedWindow, bound expressions, ASOF key plans) are defined
 * next to the code that resolves them and imported here as types only: they are plain data.
 */
import type { ErrorEnvelope } from '../errors.js';
import type { BoundExpr } from '../expr/bind.js';
import type { AsofKeyPlan, NormalizedTolerance } from '../ops/asof-keys.js';
import type { ResolvedExplode } from '../ops/explode-spec.js';
import type { HaloCarry, HaloSuffix } from '../ops/window-halo.js';
import type { ResolvedWindow } from '../ops/window-spec.js';
import type { DenseOutput } from '../ops/dense-aggregate.js';
import type { GroupFnName } from '../ops/groupby-spec.js';
import type { JoinHow, KeyScale } from '../ops/join-spec.js';
import type { JoinTableLayout } from '../ops/join-table-layout.js';
import type { RowStoreLayout } from '../ops/join-row-store.js';
import type { BatchDesc, BufRef, ColumnDesc, SchemaDesc, TypeDesc } from './column.js';

/** A run of rows of one partition: key/payload columns plus the global row id of each row. */
export interface ChunkDesc {
  length: number;
  rowIds: ColumnDesc; // uint32
  columns: ColumnDesc[];
}

/**
 * Consecutive batches of a spill file (an Arrow IPC stream): bytes [0, schemaBytes) are the
 * schema message and [start, end) the batches, which together read as a stream on their own.
 */
export interface SpillPiece {
  path: string;
  schemaBytes: number;
  start: number;
  end: number;
  rows: number;
}

/** Where a partition's rows are: chunks in memory and/or pieces of spill files. */
export interface PartitionInput {
  chunks: ChunkDesc[];
  spills: SpillPiece[];
  /** Column names/types of `columns` (spilled batches also carry `__row_id` first). */
  schema: SchemaDesc;
}

/** How much of its scratch loan a task used (src/worker/scratch.ts). */
export interface ScratchUse {
  used: number;
  overflow: number;
}

/** Rows grouped by destination: one region per non-empty destination, in shared memory. */
export interface RoutedChunks {
  /** Bytes of shared memory the regions live in, beyond the pooled output buffer's. */
  extraBytes: number;
  /** Bytes used of the pooled output buffer: its prefix [0, bufferBytes). */
  bufferBytes: number;
  /**
   * The pooled output buffer (null: none), as this reply sees it: a reply crosses threads as
   * one message, so the regions' refs into it are this very object (not the sender's).
   */
  buffer: SharedArrayBuffer | null;
  /**
   * The routed rows, destination after destination, each column described once: destination
   * d holds rows [bounds[d], bounds[d + 1]). A descriptor per destination and column made the
   * coordinator deserialize and collect some 25 objects a chunk (130K chunks for a 10M-row
   * window at 64 MiB); it cuts them itself (shuffle/routed-parts.ts). No rows: `rowIds` null.
   */
  rowIds: ColumnDesc | null;
  columns: ColumnDesc[];
  bounds: Uint32Array;
}

/** Destinations by seeded hash of key columns (or everything to partition 0). */
export interface HashRouting {
  kind: 'hash';
  /** Indices into the routed columns of the hash keys; empty = everything to partition 0. */
  keyColumns: number[];
  partitions: number;
  seed: number;
  /** 0 for the first partitioning; a partition split again uses the re-mixed hash of level n. */
  level: number;
  /**
   * The rows' level-0 hashes go along as a last uint32 column (a group-by whose table hashes
   * its keys: it reuses them instead of hashing the keys again).
   */
  carry?: boolean;
}

/**
 * Destinations by ASOF key range (src/ops/asof-range-order): range i holds the rows whose
 * (by keys, on key) tuple t has splitter[i-1] <= t < splitter[i]. Without by keys (a join
 * without them) that is the on key alone, NULL/NaN keys going to range 0, where they never
 * match; with them, an oversized by partition is cut into ranges of whole or cut groups.
 */
export interface RangeRouting {
  kind: 'range';
  keyColumn: number;
  key: AsofKeyPlan;
  /** Positions of the by keys among the routed columns (empty: on key only). */
  byColumns: number[];
  /** Sorted splitter tuples: their by values (left types), one column per by key... */
  splitterBy: ColumnDesc[];
  /** ...and their on keys (raw key type of the left side). */
  splitters: ColumnDesc;
  partitions: number;
  /** Also report each range's least and greatest valid key rows (the right side's boundary rows). */
  extremes: boolean;
}

/**
 * Destinations by row id: (rowId - base) >>> shift. An output range whose rows are too many for
 * one assemble task (a join row with many matches) cut into finer ranges of its keys.
 */
export interface IdRangeRouting {
  kind: 'idRange';
  base: number;
  shift: number;
  partitions: number;
}

export interface PartitionTask {
  kind: 'partition';
  /** Consecutive batches of the columns to route (already in shared memory), as one slab. */
  batches: BatchDesc[];
  /**
   * Routing of the slab's rows: by hash (with `partial`, of its partial groups: `keyColumns`
   * then index the partial outputs), or by key range (a sort whose splitters came first).
   */
  routing: HashRouting | SortRangeRouting;
  /**
   * Aggregate the slab first and route one row per group (a group-by's partial pass): the
   * outputs' values per group, each row with its group's first row id.
   */
  partial?: PartialAggregate;
  rowBase: number;
  /** Where the partitioned columns go first (a pooled buffer the coordinator owns). */
  outputBuffer: SharedArrayBuffer | null;
  scratch: SharedArrayBuffer | null;
}

/**
 * Routing of rows already in an exchange: by key range (ASOF join without `by` keys), by a
 * second seeded hash (a partition too big for one task, split again), or by row id (an output
 * range cut finer).
 */
export interface RouteTask {
  kind: 'route';
  input: PartitionInput;
  routing: RangeRouting | HashRouting | SortRangeRouting | IdRangeRouting;
  outputBuffer: SharedArrayBuffer | null;
  scratch: SharedArrayBuffer | null;
}

export interface RouteResult extends RoutedChunks {
  /** Range routing with `extremes`: per non-empty range, positions within its chunk of the least key row (first of equal keys) and the greatest (last of equal keys); -1 when no valid key. */
  extremes: Array<{ partition: number; min: number; max: number }>;
}

/**
 * Where a kernel task's output rows go:
 * - routed: to the row-id range `rowId >>> rangeShift` of the output exchange, in a pooled
 *   buffer (more shared memory when it is full, reported);
 * - direct: written in place into dense shared arrays indexed by row id (fixed-width outputs
 *   that fit the budget whole, or any when they are the caller's result): `values` of the
 *   column's width (bool: one byte per row) and `valid`, the column's Arrow validity bitmap as
 *   32-bit words, every bit set at first: a task clears its NULL rows' bits atomically (tasks
 *   own disjoint rows, but one word holds 32 rows of maybe several tasks).
 */
export type OutputRouting =
  | { kind: 'routed'; rangeShift: number; ranges: number; buffer: SharedArrayBuffer | null }
  | { kind: 'direct'; columns: Array<{ values: BufRef; valid: BufRef }>; staging: DirectStaging | null };

/**
 * Direct outputs written task by task (src/worker/direct-output stageDirect): a task claims
 * positions [base, base + n) of every column's values for its n rows, writes their outputs
 * there in its own order, and row r's position in pos[r]; an interleave task per column then
 * puts the values in row order. Writing a partition's rows in place, every ~P-th row of the
 * whole input, touched a cache line a value (src/coordinator/partitioned OutputRanges).
 */
export interface DirectStaging {
  /** Int32 per row: where its values are (staging is for fewer than 2^31 rows). */
  pos: BufRef;
  /** One Uint32: positions claimed so far (Atomics.add). */
  claim: BufRef;
}

/** dst[r] = src[pos[r]] for rows [start, end), `width` bytes a row (1, 2, 4 or 8). */
export interface InterleaveTask {
  kind: 'interleave';
  pos: BufRef;
  src: BufRef;
  dst: BufRef;
  width: number;
  start: number;
  end: number;
}

/**
 * A kernel task's rows themselves as its output (preserveOrder: false): every column of the
 * partition, loaded in row-id order, then the outputs in that order, all in one region of
 * shared memory that starts in the pooled `buffer` (more when it is full, reported). The
 * coordinator hands the region on to the consumer: no output exchange, no replay.
 */
export interface RowsOutput {
  kind: 'rows';
  buffer: SharedArrayBuffer | null;
}

/**
 * Window state carried from one sort range of an oversized partition to the next (ranges run
 * in order): about the partition group of the first row of the task's `before` range, the rows
 * of that group that come before `before` (range order: partition keys, order keys, row id):
 * their count, the straddling peer group's rows, the peer groups, and per column the states of
 * src/ops/window-outside.ts (running frames: those rows; whole-partition frames: the group's).
 */
export type WindowCarry = HaloCarry;

/**
 * What a range's task needs to know of the rows after its loaded ones, in the group of its last
 * loaded row (the suffix pass, run from the last range back, src/coordinator/window-ranges.ts):
 * their count, those of the last row's peer group, and the states of frames to UNBOUNDED FOLLOWING.
 */
export type WindowSuffix = HaloSuffix;

/**
 * One sort range of a window partition too big for one task (src/coordinator/window-ranges):
 * the task's `input` is the range; it also loads its neighbour ranges whole, computes over all
 * three, and keeps the outputs of its own rows. A row whose result would need rows beyond the
 * neighbours (a frame reaching the edge of the loaded rows of a group that goes on) is an
 * ExecutionError PARTITION_TOO_LARGE, never a wrong result.
 */
export interface WindowHalo {
  /** The range before, and the row id of its first row (-1: it is the partition's first range). */
  before: { input: PartitionInput; firstId: number } | null;
  /** The range after, its first row's id, and whether more ranges follow it. */
  after: { input: PartitionInput; firstId: number; more: boolean } | null;
  /** Row id of the range's own first row (-1: it is the partition's first range). */
  firstId: number;
  carry: WindowCarry;
  /** The rows after the loaded ones (null: no suffix pass; a group may go on unknown). */
  suffix: WindowSuffix | null;
  /** Rows of the whole partition, and the budget, for the error message. */
  partitionRows: number;
  budget: number;
}

/** Which column of the chunked partition plays which role is op-specific. */
export interface WindowTask {
  kind: 'window';
  input: PartitionInput;
  partitionBy: number[];
  /** Positions among the routed columns; directions and NULL order come from `window`. */
  orderBy: number[];
  measures: number[];
  window: ResolvedWindow;
  naive: boolean;
  /**
   * rows: the partition's rows in row-id order (loaded into the region), outputs appended
   * (with a halo: the range's own rows only).
   */
  out: OutputRouting | RowsOutput;
  /** Set for a sort range of an oversized partition (see WindowHalo). */
  halo?: WindowHalo;
  scratch: SharedArrayBuffer | null;
}

/**
 * One step of the suffix pass (src/coordinator/window-ranges.ts): range j-1 (`before`, whose
 * last row names the group) and range j (`input`) loaded and sorted as a window task does; the
 * reply is the suffix range j-1's task needs: src/ops/window-halo.ts suffixOf, from `next`
 * (the one range j was handed).
 */
export interface WindowSuffixTask {
  kind: 'windowSuffix';
  before: PartitionInput;
  input: PartitionInput;
  partitionBy: number[];
  orderBy: number[];
  measures: number[];
  window: ResolvedWindow;
  next: WindowSuffix;
  scratch: SharedArrayBuffer | null;
}

/** Plain settings the coordinator derives from ResolvedAsof (see coordinator/exec-asof.ts). */
export interface AsofTaskSpec {
  leftBy: number[];
  rightBy: number[];
  leftOn: number;
  rightOn: number;
  key: AsofKeyPlan;
  direction: 'backward' | 'forward' | 'nearest';
  tolerance: NormalizedTolerance | null;
  allowExactMatches: boolean;
  nullsEqual: boolean;
  /** Bound against a "pair schema": condition columns gathered from left/right routed columns. */
  condition: BoundExpr | null;
  /** For each pair-schema column: which side's routed column supplies it. */
  conditionColumns: Array<{ side: 'left' | 'right'; pos: number }>;
  /** Right routed columns that become output columns (gathered per left row by its match). */
  payload: number[];
  /** Rows output (how: 'inner'): left rows without a match are left out. */
  dropUnmatched: boolean;
}

export interface AsofTask {
  kind: 'asof';
  left: PartitionInput;
  right: PartitionInput;
  spec: AsofTaskSpec;
  /**
   * Output rows: one per left row (by left row id): `__matched` (uint8) then the payload; or
   * (rows) the left rows in row-id order, every left column then the payload.
   */
  out: OutputRouting | RowsOutput;
  scratch: SharedArrayBuffer | null;
}

/** Kernel task replies: output rows routed by row-id range (none when written directly), and the rows they read. */
export interface KernelResult extends RoutedChunks {
  rows: number;
  rightRows: number;
  /** A window range task (WindowHalo): the carry for the range after it. */
  carry?: WindowCarry;
}

/**
 * One row-id range of an output exchange made dense: the pieces of rows [base, base + rows)
 * from every partition, put in row-id order (each row exactly once).
 */
export interface AssembleTask {
  kind: 'assemble';
  input: PartitionInput;
  base: number;
  rows: number;
  scratch: SharedArrayBuffer | null;
}

export interface RowLocalTask {
  kind: 'rowlocal';
  batch: BatchDesc;
  rowBase: number;
  ops: RowOp[];
  /** Outputs in shared memory, not transferred: the run's final in-memory result (src/columns/arena TransferArena). */
  sharedResults: boolean;
  scratch: SharedArrayBuffer | null;
}

/** Row-local operations with expressions already bound (src/expr/bind: plain data). */
export type RowOp =
  | { kind: 'select'; items: Array<{ name: string; expr: BoundExpr }> }
  /** `replace` is the index of the column a new value replaces, or -1 to append. */
  | { kind: 'withColumns'; columns: Array<{ name: string; expr: BoundExpr; replace: number }> }
  | { kind: 'filter'; predicate: BoundExpr }
  /** `expr` is null for a direct column input (then `column` names it). */
  | { kind: 'explode'; inputs: Array<{ column: number | null; expr: BoundExpr | null }>; spec: ResolvedExplode }
  /**
   * Each column's row r repeated outStart[r+1] - outStart[r] times (Int32Array, rows + 1
   * entries), `length` rows out: an explode's parent columns, its plan and elements made by the
   * coordinator (src/coordinator/explode-split), which fills the result's `slab` of `slabBytes`
   * with the elements.
   */
  | { kind: 'repeat'; outStart: BufRef; length: number; slabBytes: number };

/** Columns built in the worker, in ArrayBuffers transferred with the reply (listed in `transfer`; a group's small results are copied: src/worker/entry). */
export interface ColumnsResult {
  length: number;
  columns: ColumnDesc[];
  transfer?: ArrayBuffer[];
}

/**
 * A row-local task's columns, and a blank buffer (a `repeat` op's `slabBytes`) for the
 * coordinator to fill: memory from the worker's heap, which hands out the last run's freed
 * memory again, where the coordinator's heap gives it back and faults in fresh pages.
 */
export interface RowLocalResult extends ColumnsResult {
  slab: BufRef | null;
}

/** Used by tests: a task that fails or crashes on purpose. */
export interface FaultTask {
  kind: 'fault';
  mode: 'throw' | 'exit' | 'hang';
}

/** Makes a worker collect the views it still holds of shared buffers nobody else uses (./worker/collect-task). */
export interface CollectTask {
  kind: 'collect';
  /** Collect at once (the run handed out large shared outputs), not only nudge the collector. */
  full: boolean;
}

// ---- relational verbs (sort, groupBy / distinct, join) ----------------------------------------

/** One sort key among the routed columns: direction and NULL placement. */
export interface SortKeyOrder {
  column: number;
  descending: boolean;
  nullsFirst: boolean;
}

/**
 * Destinations by ranges of (sort keys, row id) for a global sort: range i holds the rows with
 * splitter[i-1] <= (keys, row id) < splitter[i]. Row ids make every row's tuple distinct, so
 * ranges balance even when one key value holds most rows.
 */
export interface SortRangeRouting {
  kind: 'sortRange';
  keys: SortKeyOrder[];
  /** The splitter rows, sorted: one column per key (that key's type) and their row ids. */
  splitters: ColumnDesc[];
  splitterIds: ColumnDesc;
  partitions: number;
}

/** One range of a global sort: its rows (every column) in (keys, row id) order. */
export interface SortTask {
  kind: 'sort';
  input: PartitionInput;
  keys: SortKeyOrder[];
  /** Outputs in shared memory, not transferred: the run's final in-memory result (src/columns/arena TransferArena). */
  sharedResults: boolean;
  scratch: SharedArrayBuffer | null;
}

/**
 * Every `stride`-th row (in row-id order) of one piece of a sort range too big for one task:
 * its sort keys and row ids, from which the range's own splitters are drawn.
 */
/**
 * A sample of one piece of an exchange destination: the rows whose row id, mixed (fmix), is
 * below `threshold` (of 2^32), so which rows are sampled depends on their ids alone, never on
 * how the destination's rows are cut into pieces.
 */
export interface SortSampleTask {
  kind: 'sortSample';
  input: PartitionInput;
  keys: number[];
  threshold: number;
  scratch: SharedArrayBuffer | null;
}

/** A group-by output column: a function of each group's rows (`first` also gives the keys). */
export interface GroupOutputSpec {
  fn: GroupFnName;
  /** Position among the routed columns; -1 for count() of rows. */
  column: number;
  ignoreNulls: boolean;
  type: TypeDesc;
}

/** A group-by's partial pass over one slab: its key columns (routed positions) and outputs. */
export interface PartialAggregate {
  keys: number[];
  outputs: GroupOutputSpec[];
}

/**
 * One partition of a group-by (or distinct): one output row per group, routed by the group's
 * first row id. With no keys every row is one group, and an empty partition still gives it.
 */
export interface GroupByTask {
  kind: 'groupBy';
  input: PartitionInput;
  keys: number[];
  /** The column of the keys' routing hashes (HashRouting.carry), or -1: the task hashes them. */
  hashes: number;
  outputs: GroupOutputSpec[];
  out: OutputRouting;
  scratch: SharedArrayBuffer | null;
}

/**
 * A window and a group-by on keys that include the window's PARTITION BY keys, fused: per
 * partition the window outputs are computed and grouped in the same task (no window output
 * exchange, no replay, no second shuffle). The group-by's columns are positions among the
 * routed columns followed by the window's output columns.
 */
export interface WindowGroupByTask {
  kind: 'windowGroupBy';
  input: PartitionInput;
  window: Pick<WindowTask, 'partitionBy' | 'orderBy' | 'measures' | 'window' | 'naive'>;
  keys: number[];
  outputs: GroupOutputSpec[];
  out: OutputRouting;
  scratch: SharedArrayBuffer | null;
}

/**
 * One piece of a whole-input aggregate (agg() without keys) too big for one task: partial
 * aggregates the coordinator merges (src/coordinator/agg-merge.ts). The whole input is one
 * group whose positions are the row ids, so `total` (its row count) fixes the canonical
 * float-sum blocks every piece contributes to.
 */
export interface AggPartialTask {
  kind: 'aggPartial';
  input: PartitionInput;
  outputs: GroupOutputSpec[];
  total: number;
  /** Results up to this many bytes are copied rather than moved (src/worker/entry). */
  copyUpTo: number;
  scratch: SharedArrayBuffer | null;
}

/**
 * A group-by on one integer key of a small known range (src/ops/dense-aggregate): one slab's
 * rows added into a table indexed by key value that this task alone holds while it runs.
 */
export interface DenseAggTask {
  kind: 'denseAgg';
  /** The slab, consecutive batches of the key column then the measures the outputs read (shared memory). */
  batches: BatchDesc[];
  /** The slab's first row id in the input. */
  rowBase: number;
  /** The table: (span + 1) slots of the outputs' layout (slot `span`: the NULL key). */
  table: SharedArrayBuffer;
  /** The key value of slot 0. */
  base: number;
  span: number;
  outputs: DenseOutput[];
  scratch: SharedArrayBuffer | null;
}

/** A slab added (`rows` of them), or not: a key outside the table's range (the table is then of no further use). */
export interface DenseAggResult {
  rows: number;
  inRange: boolean;
}

/** A partial aggregate of one piece. */
export type PartialAgg =
  | { kind: 'count'; n: number }
  /** Exact sum h·2^64 + m·2^32 + l (m, l in [0, 2^32)) of `count` non-NULL values. */
  | { kind: 'intSum'; h: number; m: number; l: number; count: number }
  /** Exact sum of `count` non-NULL decimals of `scale`: four unsigned words (least significant first) and a signed fifth. */
  | { kind: 'decimalSum'; words: number[]; top: number; count: number; scale: number }
  /** Canonical float-sum tree nodes fully inside the piece: (block, level, index, value) quadruples. */
  | { kind: 'floatSum'; nodes: number[]; count: number }
  /** first/last/min/max: the piece's candidate row (rowId -1: none) and its value (one row). */
  | { kind: 'pick'; rowId: number; value: ColumnDesc | null };

export interface AggPartialResult {
  rows: number;
  parts: PartialAgg[];
  transfer?: ArrayBuffer[];
}

export interface JoinTaskSpec {
  how: JoinHow;
  /** Positions among each side's routed columns, pair by pair. */
  leftKeys: number[];
  rightKeys: number[];
  scales: KeyScale[];
  nullsEqual: boolean;
  /** Right routed columns that become output columns (gathered per output row). */
  payload: number[];
  /** Output ids of unmatched right rows (right/full) are rightBase + their right row id. */
  rightBase: number;
}

/**
 * One partition of a hash join. Output rows are keyed by left row id (several per left row, in
 * right input order), unmatched right rows by rightBase + right row id; the columns are the
 * right payload (left columns come from the replayed left input).
 */
export interface JoinTask {
  kind: 'join';
  left: PartitionInput;
  right: PartitionInput;
  spec: JoinTaskSpec;
  out: OutputRouting;
  scratch: SharedArrayBuffer | null;
}

/** The name of a typed-array class, so a view can be rebuilt in another thread. */
export type TypedArrayName =
  | 'Int8Array'
  | 'Int16Array'
  | 'Int32Array'
  | 'BigInt64Array'
  | 'Uint8Array'
  | 'Uint16Array'
  | 'Uint32Array'
  | 'BigUint64Array'
  | 'Float32Array'
  | 'Float64Array';

/** A KeyColumn (src/types/keys) whose arrays are regions of shared memory. */
export interface SharedKeyColumn {
  type: TypeDesc;
  length: number;
  values: BufRef;
  ctor: TypedArrayName;
  offsets: BufRef | null;
  valid: BufRef | null;
}

/**
 * Broadcast join, build side: the whole right input's routed columns (contiguous, shared) get
 * one hash table in `table`, a buffer the coordinator reserved for the probe phase
 * (src/worker/join-build-task).
 */
export interface JoinBuildTask {
  kind: 'joinBuild';
  right: ColumnDesc[];
  rows: number;
  /** Positions of the key columns among `right`, pair by pair. */
  keys: number[];
  scales: KeyScale[];
  nullsEqual: boolean;
  /** The table's slot layout (src/ops/join-table-layout joinTableLayout). */
  layout: JoinTableLayout;
  table: SharedArrayBuffer;
  scratch: SharedArrayBuffer | null;
}

/** A built broadcast-join table (src/worker/join-table): shared views every probe task reads. */
export interface JoinTableDesc {
  rows: number;
  groups: number;
  /** Most right rows of one key: bounds the output rows per left row. */
  maxGroup: number;
  /** The slot layout (src/ops/join-table-layout joinTableLayout). */
  layout: JoinTableLayout;
  /** int and str layouts with nullsEqual: the NULL-key rows (len 0: none). */
  nullRun: number;
  nullLen: number;
  /** Direct layout of the int keys (src/worker/join-table): the least key and the span (0: hashed). */
  directMin: number;
  directSpan: number;
  keys: SharedKeyColumn[];
  slots: BufRef;
  order: BufRef;
}

/**
 * Broadcast join, probe side: one slice of the left input (every column) against the table;
 * output rows in left order, each left row's matches in right input order
 * (src/worker/join-probe-task).
 */
export interface JoinProbeTask {
  kind: 'joinProbe';
  batch: BatchDesc;
  how: 'inner' | 'left' | 'semi' | 'anti';
  /** Positions of the key columns among the batch's columns, pair by pair. */
  leftKeys: number[];
  scales: KeyScale[];
  nullsEqual: boolean;
  /** Batch columns the output takes, in this order. */
  leftOut: number[];
  /** Where a left key finds its right rows: the built table, or the payload stored by key. */
  lookup: JoinLookup;
  /** Right columns gathered per output row (NULL where a left row has no match). */
  payload: ColumnDesc[];
  /** Per payload column: its inline records and length bytes (src/columns/inline-words inlineRecords), or null. */
  inlined: Array<{ records: BufRef; lengths: BufRef } | null>;
  /** Outputs in shared memory, not transferred: the run's final in-memory result (src/columns/arena TransferArena). */
  sharedResults: boolean;
  scratch: SharedArrayBuffer | null;
}

/**
 * A broadcast join's right payload stored by key (src/ops/join-row-store): its layout, lines,
 * hit and length tables over the keys min .. min + span - 1 (unique: at most a row a key).
 */
export interface JoinRowStoreDesc {
  layout: RowStoreLayout;
  lines: BufRef;
  hit: BufRef;
  lens: BufRef[];
  min: number;
  span: number;
}

/** A broadcast probe's way to the right rows: the hash table, or (unique dense int keys) the payload stored by key. */
export type JoinLookup = { kind: 'table'; table: JoinTableDesc } | { kind: 'rowStore'; store: JoinRowStoreDesc };

/**
 * Broadcast join: right rows from .. to - 1 written into the row store's lines by their key
 * (src/ops/join-row-store fillRowStore); the store's `hit` bytes are cleared before, and the
 * caller counts them after (a key of two rows leaves fewer than the rows).
 */
export interface JoinRowStoreTask {
  kind: 'joinRowStore';
  payload: ColumnDesc[];
  key: ColumnDesc;
  store: JoinRowStoreDesc;
  from: number;
  to: number;
}

/** `columns`: the left outputs (none when `leftIdentity`: they are the batch's own rows), then the payload. */
export interface JoinProbeResult extends ColumnsResult {
  leftIdentity: boolean;
}

/**
 * One key range [base, end) of a sparse output exchange (group-by, join) put in key order:
 * rows whose keys are equal keep the order their task gave them.
 */
export interface AssembleSparseTask {
  kind: 'assembleSparse';
  input: PartitionInput;
  base: number;
  end: number;
  /** Results up to this many bytes are copied rather than moved (src/worker/entry). */
  copyUpTo: number;
  /** Outputs in shared memory, not transferred: the run's final in-memory result (src/columns/arena TransferArena). */
  sharedResults: boolean;
  scratch: SharedArrayBuffer | null;
}

export interface SparseColumnsResult extends ColumnsResult {
  rowIds: ColumnDesc;
}

export type Task =
  | PartitionTask
  | RouteTask
  | WindowTask
  | WindowSuffixTask
  | AsofTask
  | AssembleTask
  | RowLocalTask
  | FaultTask
  | CollectTask
  | InterleaveTask
  | SortTask
  | SortSampleTask
  | GroupByTask
  | AggPartialTask
  | DenseAggTask
  | WindowGroupByTask
  | JoinTask
  | JoinBuildTask
  | JoinProbeTask
  | JoinRowStoreTask
  | AssembleSparseTask;

/** What each task kind replies with. */
export interface TaskResults {
  partition: RoutedChunks;
  route: RouteResult;
  window: KernelResult;
  windowSuffix: WindowSuffix;
  asof: KernelResult;
  assemble: ColumnsResult;
  rowlocal: RowLocalResult;
  fault: never;
  collect: null;
  interleave: null;
  sort: ColumnsResult;
  sortSample: SparseColumnsResult;
  groupBy: KernelResult;
  aggPartial: AggPartialResult;
  denseAgg: DenseAggResult;
  windowGroupBy: KernelResult;
  join: KernelResult;
  joinBuild: JoinTableDesc;
  joinProbe: JoinProbeResult;
  joinRowStore: null;
  assembleSparse: SparseColumnsResult;
}

export type ResultOf<T extends Task> = TaskResults[T['kind']];

/** A reply: the value, the task's time in the worker and how much of its scratch loan it used. */
export type TaskReply<T> = { ok: true; value: T; ms: number; scratch: ScratchUse } | { ok: false; error: ErrorEnvelope };

/** A finished task as the coordinator sees it. */
export interface Done<T> {
  value: T;
  ms: number;
  scratch: ScratchUse;
}
