// The shipped English model's heads on the learner's sentence (step 10 with model=trained): one layer's heads
// (the Layer control, state 'model-layer', 1-based) drawn on the sentence in the model's own tokens, each with the
// label its scores earn (model/head-scores.js), a switch to turn it off (state 'heads-off', "layer.head" 1-based),
// and the next-token top-5 and the loss on the sentence with every head on and with the chosen heads off.
import { element } from '../dom-sync.js';
import { drawHeatmap } from '../training/heatmaps.js';
import { format, STRINGS } from '../strings.js';

const S = STRINGS.heads;
/** The longest sentence drawn, in the model's tokens (the walk's T bound). */
export const MAX_TOKENS = 64;

/** "1.2,2.3" (1-based layer.head) → [[0, 1], [1, 2]] within the model's sizes; anything else is dropped. */
export function parseHeadsOff(text, { layers, heads }) {
  const pairs = [];
  for (const part of String(text ?? '').split(',')) {
    const m = part.trim().match(/^(\d+)\.(\d+)$/);
    if (!m) continue;
    const [layer, head] = [Number(m[1]) - 1, Number(m[2]) - 1];
    if (layer < layers && head < heads && !pairs.some(([l, h]) => l === layer && h === head)) pairs.push([layer, head]);
  }
  return pairs;
}
export const formatHeadsOff = (pairs) => pairs.map(([l, h]) => `${l + 1}.${h + 1}`).join(',');

/** update(changes) writes the page's state. */
export function createHeadsPanel({ update }) {
  const node = element('section', { class: 'heads-panel', 'aria-label': S.title, 'data-panel': 'heads' });
  let model = null;
  let loading = null;
  let scores = null;
  let modelModule = null;

  async function load() {
    loading ??= (async () => {
      modelModule = await import('../../model/index.js');
      model = await modelModule.loadEnglishModel();
      scores = modelModule.headScores(model);
    })();
    return loading;
  }

  function headLabel(layer, head) {
    const s = scores.heads.find((h) => h.layer === layer && h.head === head);
    return s.label ?? S.noLabel;
  }

  function render(state) {
    const { tokenizer, config } = model;
    const ids = Array.from(tokenizer.encode(state.sentence)).slice(0, MAX_TOKENS);
    const layer = Math.min(Math.max(1, state['model-layer']), config.layers) - 1;
    const off = parseHeadsOff(state['heads-off'], config);
    const texts = ids.map((id) => tokenizer.tokenText(id));
    const title = element('h3', {}, S.title);
    const intro = element('p', { class: 'explanation' }, format(S.intro, { layers: config.layers, heads: config.heads, dModel: config.dModel, tokens: ids.length }));
    const tokenLine = element('p', { class: 'heads-tokens', 'data-heads': 'tokens', style: 'display:flex;flex-wrap:wrap;gap:4px' });
    texts.forEach((t) => tokenLine.append(element('span', { class: 'token', style: 'border:1px solid #999;border-radius:3px;padding:0 3px;font-family:monospace' }, t.replace(/ /g, '·').replace(/\n/g, '⏎'))));
    if (ids.length < 2) {
      node.replaceChildren(title, intro, tokenLine, element('p', {}, S.tooShort));
      return;
    }
    const layerSelect = element('select', { id: 'heads-layer', 'data-heads': 'layer' });
    for (let l = 0; l < config.layers; l++) layerSelect.append(element('option', { value: String(l + 1) }, String(l + 1)));
    layerSelect.value = String(layer + 1);
    layerSelect.addEventListener('change', () => update({ 'model-layer': Number(layerSelect.value) }));
    const layerRow = element('p', {});
    layerRow.append(element('label', { for: 'heads-layer' }, `${S.layer} `), layerSelect);

    const result = model.forward(ids, { headsOff: off });
    // the heads side by side where the width allows (inline: the page's stylesheet belongs to the layout)
    const grid = element('div', { class: 'heads-grid', style: 'display:flex;flex-wrap:wrap;gap:12px' });
    const shownLabels = texts.map((t) => t.trim() || t.replace(/ /g, '·').replace(/\n/g, '⏎'));
    const T = ids.length;
    for (let h = 0; h < config.heads; h++) {
      const figure = element('figure', { class: 'heads-head', style: 'margin:0', 'data-layer': String(layer + 1), 'data-head': String(h + 1), 'data-label': headLabel(layer, h) });
      const canvas = element('canvas', { role: 'img', 'aria-label': format(S.heatmapLabel, { layer: layer + 1, head: h + 1, label: headLabel(layer, h) }) });
      drawHeatmap(canvas, {
        values: result.attention[layer].data.subarray(h * T * T, (h + 1) * T * T), rows: T, cols: T, kind: 'weights', causal: true,
        title: format(S.headTitle, { layer: layer + 1, head: h + 1 }), rowLabels: shownLabels, colLabels: shownLabels, maxWidth: 300,
      });
      const isOff = off.some(([l, hh]) => l === layer && hh === h);
      const box = element('input', { type: 'checkbox', id: `heads-off-${layer}-${h}`, 'data-heads': 'off' });
      box.checked = isOff;
      box.addEventListener('change', () => {
        const next = off.filter(([l, hh]) => !(l === layer && hh === h));
        if (box.checked) next.push([layer, h]);
        update({ 'heads-off': formatHeadsOff(next) });
      });
      const caption = element('figcaption', {});
      caption.append(element('strong', {}, format(S.headName, { layer: layer + 1, head: h + 1, label: headLabel(layer, h) })), element('br'));
      caption.append(box, element('label', { for: box.id }, ` ${S.switchOff}`));
      figure.append(canvas, caption);
      grid.append(figure);
    }
    const ablation = modelModule.ablate(model, ids, off, { k: 5 });
    const table = element('table', { 'data-heads': 'ablation' });
    table.append(element('caption', {}, format(S.ablationTitle, { last: shownLabels[T - 1], off: off.length ? off.map(([l, h]) => `${l + 1}.${h + 1}`).join(', ') : S.none })));
    const head = element('tr');
    for (const t of ['', S.loss, S.top]) head.append(element('th', { scope: 'col' }, t));
    table.append(element('thead'), element('tbody'));
    table.tHead.append(head);
    for (const [name, side] of [[S.before, ablation.before], [S.after, ablation.after]]) {
      const row = element('tr', { 'data-heads': name === S.before ? 'before' : 'after' });
      row.append(element('th', { scope: 'row' }, name), element('td', { 'data-loss': String(side.loss) }, side.loss.toFixed(3)),
        element('td', {}, side.top.map((t) => `“${t.text}” ${(100 * t.probability).toFixed(1)}%`).join(', ')));
      table.tBodies[0].append(row);
    }
    // picture first: the layer's heads under the title, then what they are drawn on, then their labels and the ablation
    node.replaceChildren(title, layerRow, grid, intro, tokenLine, element('p', { class: 'explanation' }, S.labels), table);
  }

  return {
    node,
    /** Shows the panel for the state (loading the model the first time), or empties it. */
    async sync(state, visible) {
      if (!visible) { node.replaceChildren(); node.hidden = true; return; }
      node.hidden = false;
      if (!model) {
        node.replaceChildren(element('p', {}, S.loading));
        try {
          await load();
        } catch (error) {
          node.replaceChildren(element('p', { class: 'error', role: 'alert' }, format(S.loadFailed, { message: error.message })));
          return;
        }
      }
      render(state);
    },
    /** The loaded model (tests and scripts), or null. */
    model: () => model,
  };
}
