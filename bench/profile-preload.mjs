// Preloaded by scripts/profile.mjs (`node --import`): makes every worker thread write a CPU
// profile even when its pool passes an explicit `execArgv` (Sluice's compiled build passes []),
// which would otherwise drop the inherited --cpu-prof flag.
import wt from 'node:worker_threads';
import { syncBuiltinESMExports } from 'node:module';

const dir = process.env.SLUICE_CPU_PROF_DIR;
if (dir && wt.isMainThread) {
  const Base = wt.Worker;
  class ProfiledWorker extends Base {
    constructor(filename, options = {}) {
      const execArgv = [...(options.execArgv ?? process.execArgv)].filter((a) => !a.startsWith('--cpu-prof'));
      execArgv.push('--cpu-prof', `--cpu-prof-dir=${dir}`);
      super(filename, { ...options, execArgv });
    }
  }
  wt.Worker = ProfiledWorker;
  syncBuiltinESMExports();
}
