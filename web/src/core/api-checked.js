// Each call is checked once. The API (api.js) checks a call in full in JS — structure, shapes, options, every
// value, memory against the module's room — and then runs the backend inside `whileApiChecked`, with what its
// check returned. A WASM backend called in that scope takes the binding's unchecked entry (`<fn>Unchecked`,
// cpp/bindings/bindings.cpp), and a call sent to the workers carries the same word to them; the JS reference and
// the WebGPU backend take the sizes the API's check computed instead of checking again (`checkedOnce`), and read
// no value a second time. A direct caller of a backend (tests, tools, the diagnosis of an overflow, which runs
// after the scope) is outside it: that call is checked there, once.
// So is the call a lost WebGPU device hands to WASM once the fallback has loaded (backends/device-loss.js): the API budgeted
// its memory for the GPU, so the binding's check, against the WASM heap, is that call's only memory check there.

/** The call the API is running: {fn, sizes} (what its check returned), or null outside one. */
let current = null;

/** Runs `run` (synchronously) as the call `fn` the API has checked, its check having returned `sizes`. */
export function whileApiChecked(run, { fn = null, sizes = null } = {}) {
  const outer = current;
  current = { fn, sizes };
  try {
    return run();
  } finally {
    current = outer;
  }
}

/**
 * The API's call being made now, for a backend that finishes it in a callback: `resume(run)` runs `run` inside
 * that call again (or plainly, where there was none). 'auto' resumes the call it routes to the GPU once the GPU
 * side has loaded (backends/auto.js).
 */
export function captureApiCall() {
  const call = current;
  return (run) => (call ? whileApiChecked(run, call) : run());
}

/** Whether the call being made now was checked by the API (inside whileApiChecked). */
export function apiChecked() {
  return current !== null;
}

/**
 * A backend's own check of `fn`, for the sizes it computes with: inside the API's call of `fn`, what the API's
 * check returned (it is not run again); anywhere else, `check()`.
 */
export function checkedOnce(fn, check) {
  return current !== null && current.fn === fn && current.sizes ? current.sizes : check();
}
