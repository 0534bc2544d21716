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

  // The explanation with its slots as code and a link: split on the slots, so no markup is parsed.
  const code = (text) => Object.assign(document.createElement('code'), { textContent: text });
  const link = Object.assign(document.createElement('a'), { href: '../bench/index.html', textContent: 'bench/index.html' });
  const slots = { command: code('npm run bench'), serve: code('node scripts/serve.mjs --root .'), page: link };
  const explanation = document.getElementById('bench-explanation');
  explanation.replaceChildren(...words.explanation.split(/(\{\w+\})/).map((part) => slots[part.slice(1, -1)] ?? part));
}

async function showResults() {
  const shipped = await (await fetch(fromBuild('bench-results/index.json'))).json();
  if (shipped.svg) chart.src = fromBuild(shipped.svg).href;
  else chart.closest('figure').remove();
  table.textContent = shipped.md ? await (await fetch(fromBuild(shipped.md))).text() : words.none;
}

fillWords();
showResults().catch((error) => { table.textContent = format(words.failed, { message: error.message }); });
