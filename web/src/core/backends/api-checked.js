// Each call is checked once. The API (api.js) checks a call in full in JS — structure, shapes, options, every
// value, memory against the module's room — and then runs the backend inside `whileApiChecked`. A WASM backend
// called in that scope takes the binding's unchecked entry (`<fn>Unchecked`, cpp/bindings/bindings.cpp), and a
// call sent to the workers carries the same word to them. A direct caller of a backend (tests, tools, the
// diagnosis of an overflow, which runs after the scope) is outside it: the binding checks that call, once, in C++.
// So is the call a lost WebGPU device hands to WASM once the fallback has loaded (device-loss.js): the API budgeted
// its memory for the GPU, so the binding's check, against the WASM heap, is that call's only memory check there.

let depth = 0;

/** Runs `run` (synchronously) as a call the API has checked; returns what it returns. */
export function whileApiChecked(run) {
  depth += 1;
  try {
    return run();
  } finally {
    depth -= 1;
  }
}

/** Whether the call being made now was checked by the API (inside whileApiChecked). */
export function apiChecked() {
  return depth > 0;
}
