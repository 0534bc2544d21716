// The Benchmark tab: the latest committed benchmark report (bench/results/, copied into the build by
// vite.config.js, listed in bench-results/index.json) shown as its chart and its Markdown table.
import './playground.css';

const chart = document.getElementById('bench-chart');
const table = document.getElementById('bench-table');
const fromBuild = (path) => new URL(path, document.baseURI);

async function showResults() {
  const shipped = await (await fetch(fromBuild('bench-results/index.json'))).json();
  if (shipped.svg) chart.src = fromBuild(shipped.svg).href;
  else chart.closest('figure').remove();
  table.textContent = shipped.md
    ? await (await fetch(fromBuild(shipped.md))).text()
    : 'This build has no benchmark results yet: run npm run bench, commit bench/results/, and build again.';
}

showResults().catch((error) => { table.textContent = `The benchmark results could not be read (${error.message}).`; });
