// The Benchmark tab: the latest committed benchmark report (bench/results/, copied into the build by
// vite.config.js, listed in bench-results/index.json) shown as its chart and its Markdown table. Its
// words come from the strings table, like the playground's.
import './playground.css';
import { STRINGS, format } from './strings.js';

const words = STRINGS.benchmarkPage;
const chart = document.getElementById('bench-chart');
const table = document.getElementById('bench-table');
const fromBuild = (path) => new URL(path, document.baseURI);

/** STRINGS at a dotted path ('benchmarkPage.title'). */
const stringAt = (path) => path.split('.').reduce((table, key) => table[key], STRINGS);

function fillWords() {
  document.title = words.documentTitle;
  for (const node of document.querySelectorAll('[data-string]')) node.textContent = stringAt(node.dataset.string);
  for (const node of document.querySelectorAll('[data-string-label]')) node.setAttribute('aria-label', stringAt(node.dataset.stringLabel));
  chart.alt = words.chartAlt;
  table.textContent = words.loading;

  fillSlots(document.getElementById('bench-explanation'), words.explanation);
}

const code = (text) => Object.assign(document.createElement('code'), { textContent: text });

/** A text's {slots} as code and links: split on the slots, so no markup is parsed. */
function fillSlots(node, text) {
  const slots = {
    command: () => code('npm run bench'),
    start: () => code('npm start'),
    serve: () => code('node scripts/serve.mjs --root .'),
    page: () => Object.assign(document.createElement('a'), { href: '../bench/index.html', textContent: 'bench/index.html' }),
  };
  node.replaceChildren(...text.split(/(\{\w+\})/).map((part) => slots[part.slice(1, -1)]?.() ?? part));
}

/**
 * Offers the benchmark runner (the repository's bench/index.html) where this host serves it: then
 * scripts/serve.mjs names it in the X-Benchmark-Runner header of every response. Elsewhere (a static
 * host of the build alone) it says what the runner needs.
 * @param {string|null} runnerPath the header's value
 */
function offerRunner(runnerPath) {
  const text = document.getElementById('bench-run-text');
  const button = document.getElementById('bench-run-button');
  if (!runnerPath?.startsWith('/')) {
    fillSlots(text, words.runNeedsRepository);
    return;
  }
  text.textContent = words.runHere;
  button.hidden = false;
  button.addEventListener('click', () => {
    const frame = Object.assign(document.createElement('iframe'), { src: new URL(runnerPath, location.origin).href, title: words.runFrameTitle, className: 'bench-runner' });
    button.replaceWith(frame);
  }, { once: true });
}

async function showResults() {
  const response = await fetch(fromBuild('bench-results/index.json'));
  offerRunner(response.headers.get('X-Benchmark-Runner'));
  const shipped = await response.json();
  if (shipped.svg) chart.src = fromBuild(shipped.svg).href;
  else chart.closest('figure').remove();
  table.textContent = shipped.md ? await (await fetch(fromBuild(shipped.md))).text() : words.none;
}

fillWords();
showResults().catch((error) => {
  table.textContent = format(words.failed, { message: error.message });
  offerRunner(null);
});
