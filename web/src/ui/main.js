// The page's entry: start the playground in #app and, when embedded, its postMessage API.
import 'katex/dist/katex.min.css';
import './playground.css';
import { startPlayground } from './app.js';
import { startEmbedApi } from './embed.js';
import { CHECK_FIXTURE } from './fixture-case.js';

const playground = startPlayground(document.getElementById('app'), {
  fixture: CHECK_FIXTURE,
  benchmarkUrl: 'benchmark.html',
});
startEmbedApi(playground, playground.getState().origin);
// Tests and scripts drive the page through this (DESIGN.md: "an engineer drives the page from Playwright").
window.attentionPlayground = playground;
