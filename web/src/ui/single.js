// The entry of the single-file page (dist/playground-single.html), which works opened straight from
// disk: no fetch of a .wasm file is possible there, so the WASM bytes travel inside the page as base64
// and are handed to the core as `wasmBinary`, matched to the build each backend name asks for.
import 'katex/dist/katex.min.css';
import './playground.css';
import { simd as simdSupported } from 'wasm-feature-detect';
import { simd, baseline } from 'virtual:wasm-base64';
import { startPlayground } from './app.js';
import { startEmbedApi } from './embed.js';
import { CHECK_FIXTURE } from './fixture-case.js';

function decode(base64) {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

const binaries = new Map();
function binary(build) {
  if (!binaries.has(build)) binaries.set(build, decode(build === 'simd' ? simd : baseline));
  return binaries.get(build);
}

// 'auto' and 'webgpu' (whose fallback is WASM) load the build this engine supports.
async function loadOptions(backend) {
  if (backend === 'js') return {};
  if (backend === 'wasm-simd') return { wasmBinary: binary('simd') };
  if (backend === 'wasm-baseline') return { wasmBinary: binary('baseline') };
  return { wasmBinary: binary((await simdSupported()) ? 'simd' : 'baseline') };
}

const playground = startPlayground(document.getElementById('app'), { fixture: CHECK_FIXTURE, loadOptions, benchmarkUrl: null });
startEmbedApi(playground, playground.getState().origin);
window.attentionPlayground = playground;
