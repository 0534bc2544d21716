// The Benchmark tab: the latest committed benchmark report (bench/results/, copied into the build by
// vite.config.js) shown as its chart and its Markdown table, as plain text.
import './playground.css';

// Set from here, not in the HTML: the files are added at the end of the build, after Vite has
// resolved the page's own asset URLs.
document.getElementById('bench-chart').src = new URL('bench-results/latest.svg', document.baseURI).href;
const table = document.getElementById('bench-table');
const markdown = new URL('bench-results/latest.md', document.baseURI);
fetch(markdown)
  .then((response) => (response.ok ? response.text() : Promise.reject(new Error(`HTTP ${response.status}`))))
  .then((text) => { table.textContent = text; })
  .catch((error) => { table.textContent = `No benchmark results in this build (${error.message}); run npm run bench.`; });
