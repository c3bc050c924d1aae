#!/usr/bin/env node
// Touches every page of N GiB at once (default 20), then exits: on a fresh VM the first touch of
// guest memory never touched since boot costs ~15-18 µs a page (the hypervisor backs it), ~5x a
// warm page fault, and lands inside whichever benchmark touches that memory first. Run it once
// after boot, before `npm run bench`:
//
//   node --max-old-space-size=100 scripts/warm-memory.mjs [GiB]
//
// Leave a few GiB free for the OS: it holds everything it touches until it exits.
const gib = Number(process.argv[2] ?? 20);
const keep = [];
const t0 = performance.now();
for (let i = 0; i < gib * 4; i++) {
  const a = new Uint8Array(256 * 2 ** 20);
  for (let j = 0; j < a.length; j += 4096) a[j] = 1;
  keep.push(a);
}
console.log(`warmed ${gib} GiB in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
