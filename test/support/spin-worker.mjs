// A worker task module for pool tests: writes its task's shared buffer until it is stopped, a
// count after each fill of a large buffer (a builtin that runs to its end before the thread
// heeds a termination, so a stop asked mid-fill lands after the next count).
export default function spin(task) {
  const counter = new Int32Array(task.spin);
  const scratch = new Uint8Array(64 * 2 ** 20);
  for (let k = 0; ; k++) {
    scratch.fill(k & 255);
    Atomics.add(counter, 0, 1);
  }
}
