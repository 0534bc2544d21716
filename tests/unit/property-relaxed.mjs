// The relaxed-SIMD half of property.test.js. Node 20 validates relaxed SIMD only behind
// --experimental-wasm-relaxed-simd, which a Vitest worker lacks, so the test runs this script in a child
// Node with the flag (as relaxed-tile-check.mjs): it reads a JSON array of calls ({fn, args}, from
// property-calls.js) on stdin, runs each on the SIMD core with the relaxed tiles installed, and prints
// {reason, defaultVariant, results: [serialised result, or {error: message}]}.
import { readFileSync } from 'node:fs';

import { installRelaxedTile } from '../../web/src/core/backends/relaxed-tile.js';
import { materialise, serialiseResult } from './property-calls.js';

const wasm = (name) => readFileSync(new URL(`../../web/src/core/wasm/${name}`, import.meta.url));
const glue = await import('../../web/src/core/wasm/attention-simd.mjs');
const core = await glue.default({ wasmBinary: wasm('attention-simd.wasm') });
const reason = await installRelaxedTile(core, wasm('relaxed-tile.wasm'));
const calls = JSON.parse(readFileSync(0, 'utf8'));
const results = calls.map(({ fn, args }) => {
  const result = core[fn](...materialise(args));
  return result instanceof Error ? { error: result.message } : serialiseResult(result);
});
console.log(JSON.stringify({ reason, defaultVariant: core.fastPathInfo().defaultVariant, results }));
