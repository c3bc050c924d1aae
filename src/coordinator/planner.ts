/**
 * The planner: turns the logical plan (src/types/plan.ts) into physical stages, checking it
 * against the schema on the way, so every PlanError is raised before any row is read.
 *
 * Stages:
 * - scan: a source;
 * - rowlocal: a fused chain of select / withColumns / filter / explode, run batch by batch in
 *   workers, in order, streaming (no shuffle, no sort);
 * - limit: stops pulling once n rows went out;
 * - window / asof: blocking stages that hash-partition, sort once per partition, run a kernel;
 * - sort / groupBy (also distinct) / join: the relational blocking stages on the same path;
 * - project (rename, drop): the same batches under another schema, no copy;
 * - union: the inputs' batches one input after the other.
 */
import type * as A from 'apache-arrow';
import { schemaFromArrow, schemaToArrow } from '../columns/arrow-types.js';
import { PlanError } from '../errors.js';
import { type BoundExpr, bindExpr, bindPredicate, expandSelect } from '../expr/bind.js';
import { toExprNode, toPredicateNode } from '../expr/builders.js';
import type { ExprNode } from '../expr/ast.js';
import { type ExplodeInputSpec, resolveExplode, type ResolvedExplode } from '../ops/explode-spec.js';
import { resolveWindow, type ResolvedWindow } from '../ops/window-spec.js';
import type { FieldDesc, SchemaDesc } from '../types/column.js';
import { typeToString } from '../types/column.js';
import type { ExprInput, PlanNode } from '../types/plan.js';
import type { RowOp } from '../types/tasks.js';
import { type AsofStagePlan, planAsof } from './exec-asof.js';
import { planWindowRouting, type WindowStagePlan } from './exec-window.js';
import { explodeSplitOf } from './explode-split.js';
import { fuseWindowGroupBy, planGroupBy, type GroupByStagePlan, type WindowFusion } from './exec-groupby.js';
import { planJoin, type JoinStagePlan } from './exec-join.js';
import { planSort, type SortStagePlan } from './exec-sort.js';
import { resolveDistinct, resolveGroupBy } from '../ops/groupby-spec.js';
import { resolveDrop, resolveRename, resolveUnion } from '../ops/project-spec.js';
import { resolveSortKeys } from '../ops/sort-spec.js';
import type { Source } from './sources.js';

export type Stage =
  | { kind: 'scan'; schema: A.Schema; source: Source }
  | { kind: 'rowlocal'; schema: A.Schema; input: Stage; ops: RowOp[]; labels: string[]; countChanges: boolean }
  | { kind: 'limit'; schema: A.Schema; input: Stage; n: number }
  | { kind: 'window'; schema: A.Schema; input: Stage; plan: WindowStagePlan }
  | { kind: 'asof'; schema: A.Schema; left: Stage; right: Stage; plan: AsofStagePlan }
  | { kind: 'sort'; schema: A.Schema; input: Stage; plan: SortStagePlan }
  /** `fused`: the input is a window computed in the group-by's own tasks (see WindowFusion). */
  | { kind: 'groupBy'; schema: A.Schema; input: Stage; plan: GroupByStagePlan; fused: WindowFusion | null }
  | { kind: 'join'; schema: A.Schema; left: Stage; right: Stage; plan: JoinStagePlan }
  | { kind: 'project'; schema: A.Schema; input: Stage; columns: number[]; label: string }
  | { kind: 'union'; schema: A.Schema; inputs: Stage[] };

export async function planStage(node: PlanNode): Promise<Stage> {
  switch (node.kind) {
    case 'source': {
      const source = node.source;
      return { kind: 'scan', schema: await source.schema(), source };
    }
    case 'select': {
      const input = await planStage(node.input);
      const items = expandSelect(node.items.map((x) => toExprNode(x)), desc(input));
      const fields: FieldDesc[] = items.map((it) => ({ name: it.name, type: it.expr.type, nullable: it.expr.nullable }));
      return rowLocal(input, { kind: 'select', items: items.map((it) => ({ name: it.name, expr: it.expr })) }, fields, `select ${items.map((i) => i.name).join(', ')}`, false);
    }
    case 'withColumns': {
      const input = await planStage(node.input);
      const schema = desc(input);
      const fields = schema.slice();
      const seen = new Set<string>();
      const columns = node.columns.map(([name, x]) => {
        if (typeof name !== 'string' || name === '') throw new PlanError('BAD_COLUMN_NAME', `withColumns: column names must be non-empty strings, got ${JSON.stringify(name)}`);
        if (seen.has(name)) throw new PlanError('DUPLICATE_COLUMN', `withColumns: column ${JSON.stringify(name)} is given twice`, { column: name });
        seen.add(name);
        const expr = bindExpr(toExprNode(x), schema);
        const replace = schema.findIndex((f) => f.name === name);
        const field = { name, type: expr.type, nullable: expr.nullable };
        if (replace >= 0) fields[replace] = field;
        else fields.push(field);
        return { name, expr: { ...expr, name } as BoundExpr, replace };
      });
      return rowLocal(input, { kind: 'withColumns', columns }, fields, `withColumns ${columns.map((c) => c.name).join(', ')}`, false);
    }
    case 'filter': {
      const input = await planStage(node.input);
      const predicate = bindPredicate(toPredicateNode(node.predicate), desc(input));
      return rowLocal(input, { kind: 'filter', predicate }, desc(input), `filter ${predicate.name}`, true);
    }
    case 'explode': {
      const input = await planStage(node.input);
      const schema = desc(input);
      const { inputs, specs } = explodeInputs(node.columns, schema);
      const opts = node.options ?? {};
      const spec: ResolvedExplode = resolveExplode(specs, opts.outputColumn, opts.ordinality, opts.ignoreEmptyAndNull ?? false, schema);
      const label = `explode ${specs.map((s) => s.name).join(', ')} (zip, strict lengths${spec.ignoreEmptyAndNull ? ', ignoreEmptyAndNull' : ''}${spec.ordinality ? `, ordinality ${spec.ordinality}` : ''})`;
      return rowLocal(input, { kind: 'explode', inputs, spec }, spec.schema, label, true);
    }
    case 'limit': {
      const input = await planStage(node.input);
      return { kind: 'limit', schema: input.schema, input, n: node.n };
    }
    case 'window': {
      const input = await planStage(node.input);
      const resolved: ResolvedWindow = resolveWindow(node.options, desc(input));
      const preserveOrder = node.options.preserveOrder !== false;
      return { kind: 'window', schema: schemaToArrow(resolved.outputSchema), input, plan: planWindowRouting(resolved, preserveOrder) };
    }
    case 'asofJoin': {
      const [left, right] = await Promise.all([planStage(node.left), planStage(node.right)]);
      const plan = planAsof(node.options, desc(left), desc(right));
      return { kind: 'asof', schema: schemaToArrow(plan.outputSchema), left, right, plan };
    }
    case 'sort': {
      const input = await planStage(node.input);
      const keys = resolveSortKeys(node.keys, desc(input));
      return { kind: 'sort', schema: input.schema, input, plan: planSort(keys) };
    }
    case 'groupBy':
    case 'distinct': {
      const input = await planStage(node.input);
      const resolved = node.kind === 'groupBy' ? resolveGroupBy(node.keys, node.aggs, desc(input)) : resolveDistinct(node.columns, desc(input));
      const plan = planGroupBy(resolved);
      // A window partitioned on some of the group keys already partitions the rows by group.
      const fused = input.kind === 'window' ? fuseWindowGroupBy(input.plan, plan, input.input.schema.fields.length) : null;
      return { kind: 'groupBy', schema: node.kind === 'distinct' ? input.schema : schemaToArrow(resolved.output), input, plan, fused };
    }
    case 'join': {
      const [left, right] = await Promise.all([planStage(node.left), planStage(node.right)]);
      const plan = planJoin(node.options, desc(left), desc(right));
      return { kind: 'join', schema: schemaToArrow(plan.resolved.output), left, right, plan };
    }
    case 'rename': {
      const input = await planStage(node.input);
      const p = resolveRename(node.mapping, desc(input));
      return { kind: 'project', schema: schemaToArrow(p.output), input, columns: p.columns, label: `rename ${node.mapping.map(([a, b]) => `${a} -> ${b}`).join(', ')}` };
    }
    case 'drop': {
      const input = await planStage(node.input);
      const p = resolveDrop(node.columns, desc(input));
      return { kind: 'project', schema: schemaToArrow(p.output), input, columns: p.columns, label: `drop ${node.columns.join(', ')}` };
    }
    case 'union': {
      const inputs = await Promise.all(node.inputs.map(planStage));
      return { kind: 'union', schema: schemaToArrow(resolveUnion(inputs.map(desc))), inputs };
    }
  }
}

function desc(stage: Stage): SchemaDesc {
  return schemaFromArrow(stage.schema);
}

/**
 * Appends a row-local op to the input's chain when it can run in the same task. An explode
 * after an op that changes the row count starts a new chain, so its error messages can name
 * the explode's own input row (the coordinator numbers rows between chains).
 */
function rowLocal(input: Stage, op: RowOp, fields: FieldDesc[], label: string, countChanges: boolean): Stage {
  const schema = schemaToArrow(fields);
  if (input.kind === 'rowlocal' && !(op.kind === 'explode' && input.countChanges)) {
    return { ...input, schema, ops: [...input.ops, op], labels: [...input.labels, label], countChanges: input.countChanges || countChanges };
  }
  return { kind: 'rowlocal', schema, input, ops: [op], labels: [label], countChanges };
}

function explodeInputs(columns: ExprInput[], schema: SchemaDesc): { inputs: Array<{ column: number | null; expr: BoundExpr | null }>; specs: ExplodeInputSpec[] } {
  const inputs: Array<{ column: number | null; expr: BoundExpr | null }> = [];
  const specs: ExplodeInputSpec[] = [];
  for (const c of columns) {
    const node: ExprNode = toExprNode(c);
    if (node.kind === 'col') {
      const index = schema.findIndex((f) => f.name === node.name);
      if (index < 0) bindExpr(node, schema); // raises UNKNOWN_COLUMN with the available names
      inputs.push({ column: index, expr: null });
      specs.push({ direct: true, columnIndex: index, name: node.name, type: schema[index]!.type });
    } else {
      const expr = bindExpr(node, schema);
      inputs.push({ column: null, expr });
      specs.push({ direct: false, columnIndex: null, name: expr.name, type: expr.type });
    }
  }
  return { inputs, specs };
}

/** explain(): the stage tree with partitioning, sort keys and algorithms. */
export function explainStage(stage: Stage, threads: number, partitions: number, indent = ''): string[] {
  const next = indent + '  ';
  const cols = (s: A.Schema) => schemaFromArrow(s).map((f) => `${f.name}: ${typeToString(f.type)}`).join(', ');
  switch (stage.kind) {
    case 'scan':
      return [`${indent}Scan ${stage.source.label} [${cols(stage.schema)}]`];
    case 'rowlocal':
      return [
        `${indent}RowLocal (streaming, batch by batch in ${threads === 0 ? 'the main thread' : `${threads} worker threads`}, input order kept, no shuffle)`,
        ...stage.labels.map((l) => `${next}- ${l}`),
        ...(explodeSplitOf(stage.ops)
          ? [`${next}  elements built by the coordinator from the lists it holds (no copy of them to a worker; a string list's bytes shared), the parent columns repeated ${threads === 0 ? 'inline' : 'by the workers'}`]
          : []),
        ...explainStage(stage.input, threads, partitions, next),
      ];
    case 'limit':
      return [`${indent}Limit ${stage.n}`, ...explainStage(stage.input, threads, partitions, next)];
    case 'window':
      return [...windowLines(stage, indent, partitions, false), ...explainStage(stage.input, threads, partitions, next)];
    case 'asof':
      return [...stage.plan.explain(indent, partitions), ...explainStage(stage.left, threads, partitions, next), ...explainStage(stage.right, threads, partitions, next)];
    case 'sort':
      return [...stage.plan.explain(indent, partitions), ...explainStage(stage.input, threads, partitions, next)];
    case 'groupBy': {
      if (!stage.fused || stage.input.kind !== 'window') return [...stage.plan.explain(indent, partitions, null), ...explainStage(stage.input, threads, partitions, next)];
      const w = stage.input;
      const reuse = `reuses the Window's hash(${w.plan.resolved.partitionBy.map((c) => c.column).join(', ')}) partitioning into ${partitions} partitions (its keys are group keys): window and grouping run in one task per partition, no second shuffle`;
      return [...stage.plan.explain(indent, partitions, reuse), ...windowLines(w, next, partitions, true), ...explainStage(w.input, threads, partitions, next + '  ')];
    }
    case 'join':
      return [...stage.plan.explain(indent, partitions), ...explainStage(stage.left, threads, partitions, next), ...explainStage(stage.right, threads, partitions, next)];
    case 'project':
      return [`${indent}Project (${stage.label}; no copy) [${cols(stage.schema)}]`, ...explainStage(stage.input, threads, partitions, next)];
    case 'union':
      return [`${indent}Union (${stage.inputs.length} inputs, one after the other, streaming)`, ...stage.inputs.flatMap((s) => explainStage(s, threads, partitions, next))];
  }
}

function windowLines(stage: Extract<Stage, { kind: 'window' }>, indent: string, partitions: number, fused: boolean): string[] {
  const next = indent + '  ';
  const r = stage.plan.resolved;
  const parts = r.partitionBy.length === 0 ? 1 : partitions;
  return [
    `${indent}Window${fused ? ' (fused into the GroupBy above: same tasks, no output exchange, no replay)' : ''}`,
    `${next}partitioning: ${r.partitionBy.length === 0 ? 'none (no PARTITION BY): 1 partition' : `hash(${r.partitionBy.map((c) => c.column).join(', ')}) into ${parts} partitions, seeded`}; a partition too big for a task runs in sort ranges, in order, each seeing its neighbours`,
    `${next}sort per partition: (${[...r.partitionBy.map((c) => `${c.column} group`), ...r.orderBy.map((o) => `${o.column} ${o.descending ? 'DESC' : 'ASC'} NULLS ${o.nulls.toUpperCase()}`), 'row id'].join(', ')}) by LSD radix argsort, once`,
    ...r.columns.map((c) => `${next}${c.name} = ${c.fn}(${c.measure < 0 ? (c.fn === 'count' ? '*' : '') : r.measures[c.measure]!.column}) ${c.frameText}: ${windowAlgorithm(c, r)}`),
    ...(fused
      ? []
      : stage.plan.preserveOrder
        ? [`${next}output: input order (row ids), columns appended`]
        : [`${next}output: order: partition order (preserveOrder: false), each partition's rows in input order, columns appended; every column routed, no retained input, no output exchange`]),
  ];
}

function windowAlgorithm(c: ResolvedWindow['columns'][number], r: ResolvedWindow): string {
  const measure = c.measure < 0 ? null : r.measures[c.measure]!;
  const isFloat = measure !== null && measure.type.kind === 'float';
  const mods = `${c.ignoreNulls ? ', ignoring NULLs' : ''}${c.minPeriods > 0 ? `, NULL below ${c.minPeriods} values` : ''}`;
  switch (c.fn) {
    case 'min':
    case 'max':
      return `monotonic deque (O(1) amortized)${mods}`;
    case 'count':
      return `differences of a running non-NULL count${mods}`;
    case 'countDistinct':
      return `sliding multiset of value ids (O(1) amortized)${mods}`;
    case 'first':
    case 'last':
    case 'nthValue':
      return `${c.ignoreNulls ? 'index of the n-th non-NULL row (running count + positions)' : 'frame index arithmetic'} (O(1))${mods}`;
    case 'lag':
    case 'lead':
      return `row offset ${Math.abs(c.n)} ${c.n >= 0 ? 'back' : 'ahead'}${c.ignoreNulls ? ' over non-NULL rows (running count + positions)' : ''} (O(1))${c.default ? ', with a default' : ''}`;
    case 'rowNumber':
    case 'rank':
    case 'denseRank':
    case 'percentRank':
    case 'cumeDist':
    case 'ntile':
      return `peer groups of the order keys (O(1) per row)${c.fn === 'ntile' ? `, ${c.n} buckets` : ''}`;
    case 'stddev':
    case 'variance':
    case 'stddevPop':
    case 'varPop':
      return isFloat
        ? `pairwise blocks of (count, mean, M2) merged with Chan's formula (error bounded by the frame's own values)${mods}`
        : `exact prefix sums of x and x^2, one rounding at the end (O(1) per row)${mods}`;
    default:
      if (isFloat) return `pairwise block sums per frame (no prefix differences; error bounded by the frame's own values)${mods}`;
      if (measure?.type.kind === 'decimal') return `differences of one exact 160-bit prefix per measure (NULL beyond 38 digits)${mods}`;
      return `differences of one running prefix per measure (exact 64-bit wrapping), shared by every horizon${mods}`;
  }
}
