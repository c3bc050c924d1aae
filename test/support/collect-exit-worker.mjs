// A worker task module for pool tests: a collect task ends the worker (as a crash would); any
// other task gets a reply.
export default function reply(task) {
  if (task.kind === 'collect') process.exit(1);
  return { ok: true, value: { kind: task.kind }, ms: 0, scratch: { used: 0, overflow: 0 } };
}
