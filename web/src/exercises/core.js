// The core every exercise's reference calls: the JS reference backend behind the public API
// (core/api.js), synchronous and the same in Node and in the browser. It implements docs/api.md with
// the same checks as the WASM core and matches it (and PyTorch) to 1e-5 on the fixtures.
import { createAttention } from '../core/api.js';
import { createReferenceBackend } from '../core/reference/index.js';

let core = null;

/** The shared reference core (created once). */
export function referenceCore() {
  core ??= createAttention(createReferenceBackend());
  return core;
}
