/**
 * A real `gc()` for tests that check what the collector frees: the flag is turned on at run
 * time (test processes only; the engine never does this) and `gc` taken from a new context.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
export const gc = runInNewContext('gc') as () => void;

/** A few collections, each followed by a turn of the event loop (finalization callbacks run then). */
export async function collect(rounds = 4): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 10));
  }
}
