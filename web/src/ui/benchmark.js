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

// The report's Markdown, as elements: headings, paragraphs, lists, tables, **bold**, `code` and
// [links](…). Text only goes in through textContent: no markup from the file is parsed as HTML.
function inline(text) {
  const nodes = [];
  const pattern = /\*\*(.+?)\*\*|`([^`]+)`|\[([^\]]+)\]\(([^)\s]+)\)|\*([^*\s][^*]*)\*/g;
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index > last) nodes.push(document.createTextNode(text.slice(last, match.index)));
    const [, bold, codeText, linkText, href, em] = match;
    if (bold !== undefined) nodes.push(Object.assign(document.createElement('strong'), { textContent: bold }));
    else if (codeText !== undefined) nodes.push(code(codeText));
    else if (linkText !== undefined) {
      const safe = /^(https?:|\.|\/|#|[\w-]+(\/|\.|$))/.test(href) && !/^javascript:/i.test(href);
      nodes.push(safe ? Object.assign(document.createElement('a'), { href, textContent: linkText }) : document.createTextNode(linkText));
    } else nodes.push(Object.assign(document.createElement('em'), { textContent: em }));
    last = match.index + match[0].length;
  }
  if (last < text.length) nodes.push(document.createTextNode(text.slice(last)));
  return nodes;
}

const cellsOf = (line) => line.trim().replace(/^\|/, '').replace(/\|$/, '').split('|').map((cell) => cell.trim());

/** Markdown text → a fragment of elements. */
export function renderMarkdown(markdown) {
  const fragment = document.createDocumentFragment();
  const lines = markdown.split('\n');
  let i = 0;
  const make = (tag, children) => {
    const node = document.createElement(tag);
    node.append(...children);
    return node;
  };
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === '') { i++; continue; }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      fragment.append(make(`h${Math.min(6, heading[1].length + 2)}`, inline(heading[2])));
      i++;
    } else if (/^\s*\|/.test(line) && /^\s*\|?[\s:|-]+\|?\s*$/.test(lines[i + 1] ?? '') && (lines[i + 1] ?? '').includes('-')) {
      const table = document.createElement('table');
      const headRow = make('tr', cellsOf(line).map((cell) => { const th = make('th', inline(cell)); th.scope = 'col'; return th; }));
      const align = cellsOf(lines[i + 1]).map((cell) => (cell.endsWith(':') ? 'right' : 'left'));
      table.append(make('thead', [headRow]));
      const body = document.createElement('tbody');
      i += 2;
      while (i < lines.length && /^\s*\|/.test(lines[i])) {
        body.append(make('tr', cellsOf(lines[i]).map((cell, c) => {
          const td = make('td', inline(cell));
          td.style.textAlign = align[c] ?? 'left';
          return td;
        })));
        i++;
      }
      table.append(body);
      const wrap = make('div', [table]);
      wrap.className = 'bench-md-table';
      wrap.tabIndex = 0;
      wrap.setAttribute('role', 'region');
      wrap.setAttribute('aria-label', table.rows[0]?.textContent ?? 'table');
      fragment.append(wrap);
    } else if (/^\s*[-*]\s+/.test(line)) {
      const list = document.createElement('ul');
      while (i < lines.length && /^\s*[-*]\s+/.test(lines[i])) {
        list.append(make('li', inline(lines[i].replace(/^\s*[-*]\s+/, ''))));
        i++;
      }
      fragment.append(list);
    } else {
      const paragraph = [];
      while (i < lines.length && lines[i].trim() !== '' && !/^(#{1,6}\s|\s*\||\s*[-*]\s+)/.test(lines[i])) paragraph.push(lines[i++]);
      fragment.append(make('p', inline(paragraph.join(' '))));
    }
  }
  return fragment;
}

async function showResults() {
  const response = await fetch(fromBuild('bench-results/index.json'));
  offerRunner(response.headers.get('X-Benchmark-Runner'));
  const shipped = await response.json();
  if (shipped.svg) chart.src = fromBuild(shipped.svg).href;
  else chart.closest('figure').remove();
  if (shipped.md) table.replaceChildren(renderMarkdown(await (await fetch(fromBuild(shipped.md))).text()));
  else table.textContent = words.none;
}

fillWords();
showResults().catch((error) => {
  table.textContent = format(words.failed, { message: error.message });
  offerRunner(null);
});
