/**
 * The property the engine-level window differential tests share: random rows and a random call
 * (window-arbitraries), run at two engine settings and two batch sizes. Calls the builder
 * rejects are skipped, not filtered out, so a test can count the cases it really checked.
 */
import fc from 'fast-check';
import type { WindowOptions } from '../../src/ops/window-spec.js';
import { batchSizeArb, settingArb, type EngineSetting } from './engines.js';
import { buildCall, callArb, rowArb, type Call } from './window-arbitraries.js';
import { engineOptions } from './window-fns.js';
import type { RefRow } from './window-reference.js';

export interface WindowEngineCase {
  rows: RefRow[];
  call: Call;
  /** The call as the engine's window options. */
  opts: WindowOptions;
  s1: EngineSetting;
  s2: EngineSetting;
  b1: number;
  b2: number;
}

export function windowEngineProperty(check: (c: WindowEngineCase) => Promise<void>) {
  return fc.asyncProperty(fc.array(rowArb, { maxLength: 50 }), callArb, settingArb, settingArb, batchSizeArb, batchSizeArb, async (rows, call, s1, s2, b1, b2) => {
    const built = buildCall(call);
    if ('error' in built) return;
    await check({ rows, call, opts: engineOptions(built.both), s1, s2, b1, b2 });
  });
}
