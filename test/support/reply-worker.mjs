// A worker task module for pool tests: replies to any task with a fresh object of its own.
export default function reply(task) {
  return { ok: true, value: { kind: task.kind, payload: new Array(256).fill(task.kind) }, ms: 0, scratch: { used: 0, overflow: 0 } };
}
