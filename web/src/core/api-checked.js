// Each call is checked once. The API (api.js) checks a call in full in JS — structure, shapes, options, every
// value, memory against the module's room on the backend that will run it — on a snapshot of its arguments (no
// getter of the caller's runs after the check), and then runs the backend inside `whileApiChecked`, with the
// function, what its check returned and the backend it budgeted for. Only that function, on that backend, runs
// unchecked: a WASM backend takes the binding's unchecked entry (`<fn>Unchecked`, cpp/bindings/bindings.cpp), a
// call sent to the workers carries the same word to them, and the JS reference and the WebGPU backend take the
// sizes the API's check computed (`checkedOnce`) and read no value a second time. Anything else — a direct caller
// of a backend (tests, tools), the diagnosis of an overflow (after the scope), a call that reaches another
// backend than the one budgeted for (a lost GPU's call repeated on WASM, a call 'auto' sends back to the CPU
// after planning it for the GPU) — is checked where it lands, once.

/** The call the API is running: {fn, sizes, backend}, or null outside one. */
let current = null;

/** Runs `run` with `call` as the call being made (null: none), then the outer one again. */
function withCall(call, run) {
  const outer = current;
  current = call;
  try { return run(); } finally { current = outer; }
}

/**
 * Runs `run` (synchronously) as the call `fn` the API has checked: its check returned `sizes`, and it budgeted
 * the call's memory for `backend` (a backend's name).
 */
export function whileApiChecked(run, { fn, sizes, backend }) {
  return withCall({ fn, sizes, backend }, run);
}

/** Runs `run` outside any API call: the API's own check of a call made from inside another one checks in full. */
export function outsideApiCall(run) {
  return withCall(null, run);
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

/**
 * Whether a call of `fn` made now is the one the API checked, and, given `backend` (a backend's name), whether
 * the API budgeted its memory for that backend.
 */
export function apiChecked(fn, backend) {
  return current !== null && current.fn === fn && (backend === undefined || current.backend === backend);
}

/** The backend the API budgeted the call being made now for, or null outside one. */
export function apiCheckedBackend() {
  return current?.backend ?? null;
}

/**
 * A backend's own check of `fn`, for the sizes it computes with: inside the API's call of `fn`, what the API's
 * check returned (it is not run again); anywhere else, `check()`.
 */
export function checkedOnce(fn, check) {
  return current !== null && current.fn === fn ? current.sizes : check();
}
