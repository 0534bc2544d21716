// Builds the playground page (web/index.html) into dist/: a static site with relative URLs, so it works
// from any static host and any sub-path, without special headers and without network access (KaTeX and
// the WASM modules are bundled). `--mode single` builds the one-file variant (vite-plugin-singlefile:
// module, styles and fonts inlined; the WASM bytes inlined as base64 and handed to the core as
// `wasmBinary`), which scripts/build.sh moves to dist/playground-single.html. `--mode package` builds the
// page the npm package ships (page/, see packagePage below).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { viteSingleFile } from 'vite-plugin-singlefile';
import katex from 'katex';
import { STEPS } from './web/src/ui/steps.js';
import { cppPanel, extractRegions } from './web/src/ui/cpp-regions.js';

const repo = (path) => fileURLToPath(new URL(path, import.meta.url));

// Step 9 compares against one PyTorch case; only that case goes into the bundle.
const CHECK_FIXTURE_FILE = repo('./tests/fixtures/selfAttention.json');
const CHECK_FIXTURE_CASE = 'step 9: the journey sentence, torch.manual_seed(789) nn.Linear weights, causal';

function virtualModule(name, load) {
  const id = `\0${name}`;
  return {
    name: `attention-playground:${name}`,
    resolveId: (source) => (source === name ? id : null),
    load: (source) => (source === id ? load() : null),
  };
}

function checkFixture() {
  return virtualModule('virtual:check-fixture', () => {
    const fixture = JSON.parse(readFileSync(CHECK_FIXTURE_FILE, 'utf8'));
    const chosen = fixture.cases.find((c) => c.name === CHECK_FIXTURE_CASE) ?? fixture.cases[0];
    const { args, expected, name } = chosen;
    return `export default ${JSON.stringify({ function: fixture.function, name, args, expected })};`;
  });
}

// The steps' formulas are fixed, so KaTeX typesets them here, once, at build time: the page ships
// KaTeX's stylesheet and fonts but not its 270 KB parser (and draws a step sooner).
function typesetFormulas() {
  return virtualModule('virtual:formulas', () => {
    const html = Object.fromEntries(STEPS.map((step) => [
      step.id, katex.renderToString(step.formula, { displayMode: true, throwOnError: true, output: 'htmlAndMathml' }),
    ]));
    // A formula that comes to need a dropped font face fails the build instead of showing a fallback font.
    for (const [id, text] of Object.entries(html)) {
      const needed = [...DROPPED_KATEX_FACES, ...UNUSED_KATEX_FAMILIES].find(({ classes }) => classes.some((name) => new RegExp(`class="[^"]*\\b${name}\\b`).test(text)));
      if (needed) throw new Error(`step ${id}: its formula needs KaTeX_${needed.face}, which katexWoff2Only() drops`);
    }
    return `export default ${JSON.stringify(html)};`;
  });
}

// The C++ panels are regions of the real teaching files (cpp/attention/*.cpp, marked `// region: name`),
// cut out here at build time: the page shows the code the core runs, never a paraphrase of it.
function cppRegions() {
  return {
    ...virtualModule('virtual:cpp-regions', () => {
      const regions = extractRegions(readCppSources());
      const panels = Object.fromEntries(STEPS.map((step) => [step.id, cppPanel(step.cpp, regions)]));
      return `export default ${JSON.stringify(panels)};`;
    }),
    name: 'attention-playground:cpp-regions',
    buildStart() {
      for (const file of CPP_FILES()) this.addWatchFile(repo(`./cpp/attention/${file}`));
    },
  };
}
const CPP_FILES = () => readdirSync(repo('./cpp/attention')).filter((file) => file.endsWith('.cpp')).sort();
export function readCppSources() {
  return Object.fromEntries(CPP_FILES().map((file) => [`cpp/attention/${file}`, readFileSync(repo(`./cpp/attention/${file}`), 'utf8')]));
}

// The single-file page carries both WASM builds as base64 text (decoded once at start-up).
function inlineWasm() {
  return virtualModule('virtual:wasm-base64', () => {
    const read = (build) => readFileSync(repo(`./web/src/core/wasm/attention-${build}.wasm`)).toString('base64');
    return `export const simd = ${JSON.stringify(read('simd'))};\nexport const baseline = ${JSON.stringify(read('baseline'))};`;
  });
}

// KaTeX's stylesheet offers every font as woff2, woff and ttf. Every browser that runs WebAssembly SIMD
// or WebGPU reads woff2, so the other two are dropped: half the shipped bytes. The families our formulas
// never use (\mathcal, \mathfrak, \mathsf, \mathtt, \mathscr) are dropped too.
const UNUSED_KATEX_FAMILIES = [
  { face: 'Caligraphic', classes: ['mathcal'] },
  { face: 'Fraktur', classes: ['mathfrak'] },
  { face: 'SansSerif', classes: ['mathsf', 'textsf'] },
  { face: 'Script', classes: ['mathscr'] },
  { face: 'Typewriter', classes: ['mathtt', 'texttt'] },
];
// Faces of the families kept that no formula uses either (no AMS symbol, no italic upright text, no bold
// symbol): about 78 KB of the npm package. The classes that would need each are checked at typesetting.
const DROPPED_KATEX_FACES = [
  { face: 'AMS-Regular', classes: ['amsrm', 'mathbb', 'textbb'] },
  { face: 'Main-Italic', classes: ['mathit', 'textit'] },
  { face: 'Main-BoldItalic', classes: ['textit', 'boldsymbol'] },
  { face: 'Math-BoldItalic', classes: ['boldsymbol'] },
];
function katexWoff2Only() {
  return {
    name: 'attention-playground:katex-woff2-only',
    enforce: 'pre',
    transform(code, id) {
      if (!/katex(\.min)?\.css$/.test(id)) return null;
      // katex.min.css quotes some family names (font-family:"KaTeX_SansSerif").
      const unused = new RegExp(`@font-face\\{[^}]*font-family:"?KaTeX_(${UNUSED_KATEX_FAMILIES.map(({ face }) => face).join('|')})"?;[^}]*\\}`, 'g');
      const droppedFace = new RegExp(`@font-face\\{[^}]*fonts/KaTeX_(${DROPPED_KATEX_FACES.map(({ face }) => face).join('|')})\\.woff2[^}]*\\}`, 'g');
      return code
        .replace(unused, '')
        .replace(droppedFace, '')
        .replace(/,\s*url\([^)]*\.woff\) format\("woff"\)/g, '')
        .replace(/,\s*url\([^)]*\.ttf\) format\("truetype"\)/g, '');
    },
  };
}

// The Benchmark tab shows the latest committed benchmark report: bench/results/latest.{svg,md} (or the
// quick run's files when no full run is committed) become dist/bench-results/latest.{svg,md}, listed in
// dist/bench-results/index.json so the tab never asks for a file the build does not have. The npm package's
// page (page/) ships the table alone: the chart is kept out of the tarball, which must stay under 1 MB.
function benchmarkResults(extensions = ['svg', 'md']) {
  return {
    name: 'attention-playground:benchmark-results',
    generateBundle() {
      const shipped = {};
      for (const extension of extensions) {
        const source = ['latest', 'quick'].map((name) => repo(`./bench/results/${name}.${extension}`)).find((path) => existsSync(path));
        if (!source) continue;
        const fileName = `bench-results/latest.${extension}`;
        this.emitFile({ type: 'asset', fileName, source: readFileSync(source) });
        shipped[extension] = fileName;
      }
      this.emitFile({ type: 'asset', fileName: 'bench-results/index.json', source: JSON.stringify(shipped) });
    },
  };
}

// The head every page shares (web/index.html, web/benchmark.html), written once: each page says where it goes with
// SHARED_HEAD_MARK, and a page without the mark is an error rather than a page without a charset.
const SHARED_HEAD_MARK = '    <!-- the shared head: vite.config.js (sharedHead) -->\n';
const SHARED_HEAD = `    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="color-scheme" content="light dark" />
    <link rel="icon" href="data:," />
`;
function sharedHead() {
  return {
    name: 'attention-playground:shared-head',
    transformIndexHtml: {
      order: 'pre',
      handler(html, { filename }) {
        if (!html.includes(SHARED_HEAD_MARK)) throw new Error(`${filename}: no '${SHARED_HEAD_MARK.trim()}' line in its head`);
        return html.replace(SHARED_HEAD_MARK, SHARED_HEAD);
      },
    },
  };
}

// The single page ships the WASM bytes once, through `virtual:wasm-base64`; the core's own
// `new URL('….wasm', import.meta.url)` references then stay separate files that the page never fetches.
function swapEntryForSingle() {
  return {
    name: 'attention-playground:single-entry',
    transformIndexHtml: { order: 'pre', handler: (html) => html.replace('/src/ui/main.js', '/src/ui/single.js') },
  };
}

// vite-plugin-singlefile inlines every asset; the two core .wasm files must stay out (they travel once,
// as base64 in `virtual:wasm-base64`), so this runs after it and narrows the inline rule again. Small
// wasm helpers (the relaxed-SIMD tile) are inlined as data: URLs, which fetch() reads from file:// too.
function keepWasmOutOfInlining() {
  return {
    name: 'attention-playground:keep-wasm-out',
    enforce: 'post',
    config(config) {
      config.build.assetsInlineLimit = (file) => !/attention-(simd|baseline)\.wasm$/.test(file);
    },
  };
}

// The npm package ships the page (and the element beside it) in page/, next to the core it already ships:
// pkg/page/index.html and pkg/web/src/core/wasm/. So the package holds each .wasm build and each
// Emscripten glue module once: the page's chunks (page/assets/) load the core's own files by a relative
// URL instead of hashed copies of them. dist/ stays self-contained (any static host, any sub-path).
const CORE_FROM_PAGE_ASSETS = '../../web/src/core/wasm/';
const CORE_BUILD_FILE = /^attention-(simd|baseline)\.(wasm|mjs)$/;
function coreFilesFromPackage() {
  const coreFile = (id) => {
    const path = id.split('?')[0];
    const name = path.split('/').pop();
    return path.startsWith(repo('./web/src/core/wasm/')) && CORE_BUILD_FILE.test(name) ? name : null;
  };
  return {
    name: 'attention-playground:core-files-from-package',
    enforce: 'pre',
    // The glue modules: imported at run time from the core's folder (external, the path kept as written).
    async resolveId(source, importer, options) {
      if (!/attention-(simd|baseline)\.mjs$/.test(source)) return null;
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      const name = resolved && coreFile(resolved.id);
      return name ? { id: `${CORE_FROM_PAGE_ASSETS}${name}`, external: 'absolute' } : null;
    },
    // The .wasm files: renderBuiltUrl (below) points their URLs at the core's folder; the hashed copies
    // Vite emitted are dropped here.
    generateBundle(_, bundle) {
      for (const fileName of Object.keys(bundle)) {
        if (/^assets\/attention-(simd|baseline)-[\w-]+\.wasm$/.test(fileName) || SHIPPED_MODEL_ASSET.test(fileName)) delete bundle[fileName];
      }
    },
  };
}
// Vite bundles each `new Worker(new URL('./x.js', import.meta.url), { type: 'module' })` on its own, with its
// own copy of every module it imports: the training worker carried a second trainer, planner, registry,
// GPU runtime and GPU training engine. In the package's page each such worker is instead one more entry of
// the page's own build, so the worker and the page load the same chunks (module workers import them like
// the page does). The literal form is rewritten before Vite's worker plugin sees it.
// A worker has no `document`, where Vite's preloading of a dynamic import's dependencies adds <link>s:
// dynamic imports in the chunks a worker loads import their chunk alone (build.modulePreload, below).
const MODULE_WORKER = /new Worker\(new URL\((['"])(\.\.?\/[\w./-]+\.js)\1, import\.meta\.url\), \{ type: 'module' \}\)/g;
function workersShareChunks(chunksWorkersLoad) {
  const workerIds = new Set();
  return {
    name: 'attention-playground:workers-share-chunks',
    enforce: 'pre',
    // Runs before Vite's own generateBundle writes the preload lists: every chunk a worker entry imports.
    generateBundle(_, bundle) {
      chunksWorkersLoad.clear();
      const visit = (fileName) => {
        const chunk = bundle[fileName];
        if (chunksWorkersLoad.has(fileName) || chunk?.type !== 'chunk') return;
        chunksWorkersLoad.add(fileName);
        chunk.imports.forEach(visit);
        chunk.dynamicImports.forEach(visit);
      };
      for (const chunk of Object.values(bundle)) if (chunk.type === 'chunk' && workerIds.has(chunk.facadeModuleId)) visit(chunk.fileName);
    },
    async transform(code, id) {
      if (!code.includes('new Worker(new URL(') || id.includes('node_modules')) return null;
      let changed = null;
      for (const match of code.matchAll(MODULE_WORKER)) {
        const resolved = await this.resolve(match[2], id);
        if (!resolved) throw new Error(`${id}: worker script ${match[2]} not found`);
        workerIds.add(resolved.id);
        const reference = this.emitFile({ type: 'chunk', id: resolved.id, name: match[2].split('/').pop().replace(/\.js$/, '') });
        changed = (changed ?? code).replace(match[0], `new Worker(import.meta.ROLLDOWN_FILE_URL_${reference}, { type: 'module' })`);
      }
      return changed;
    },
  };
}
// The shipped English model (web/src/model/english.safetensors) likewise: the package's page reads the model
// folder's own file, never a second copy.
const SHIPPED_MODEL_ASSET = /^assets\/english-[\w-]+\.safetensors$/;
const packageWasmUrl = (fileName) => {
  if (SHIPPED_MODEL_ASSET.test(fileName)) return '../../web/src/model/english.safetensors';
  const match = /^assets\/attention-(simd|baseline)-[\w-]+\.wasm$/.exec(fileName);
  return match ? `${CORE_FROM_PAGE_ASSETS}attention-${match[1]}.wasm` : { relative: true };
};

// Rolldown's plugin-timing report measures Vite's own plugins (the worker and asset URL transforms), which this
// project cannot speed up: a warning in every build that names no problem of the page. Its other checks stay on.
const CHECKS = { pluginTimings: false };

export default defineConfig(({ mode }) => {
  const single = mode === 'single';
  const forPackage = mode === 'package';
  const chunksWorkersLoad = new Set();
  return {
    root: repo('./web'),
    base: './',
    publicDir: single ? false : repo('./web/public'),
    plugins: [sharedHead(), checkFixture(), typesetFormulas(), cppRegions(), katexWoff2Only(), ...(single ? [inlineWasm(), swapEntryForSingle(), viteSingleFile(), keepWasmOutOfInlining()] : [benchmarkResults(forPackage ? ['md'] : undefined)]),
      ...(forPackage ? [coreFilesFromPackage(), workersShareChunks(chunksWorkersLoad)] : [])],
    ...(forPackage ? { experimental: { renderBuiltUrl: packageWasmUrl } } : {}),
    build: {
      outDir: single ? repo('./build/page-single') : forPackage ? repo('./page') : repo('./dist'),
      emptyOutDir: true,
      target: 'es2022',
      reportCompressedSize: false,
      chunkSizeWarningLimit: 2000,
      ...(forPackage ? { modulePreload: { resolveDependencies: (_, deps, { hostId }) => (chunksWorkersLoad.has(hostId) ? [] : deps) } } : {}),
      rolldownOptions: { checks: CHECKS, ...(single ? {} : { input: { index: repo('./web/index.html'), benchmark: repo('./web/benchmark.html') } }) },
    },
    // Module workers as ES modules, so their dynamic imports stay chunks of their own: the training worker
    // loads the core's WASM path only, never its WebGPU code.
    worker: { format: 'es', rolldownOptions: { checks: CHECKS }, ...(forPackage ? { plugins: () => [coreFilesFromPackage()] } : {}) },
    server: { fs: { allow: [repo('.')] } },
  };
});
