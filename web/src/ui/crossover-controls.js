// The GPU crossover beside the backend badge (backend 'Automatic' only): which crossover routes the calls
// and why (attention.gpuCrossover), a number to set one (attention.setGpuCrossover), a button to clear the
// stored one (attention.clearGpuCrossover), and whether this browser measures one (the probe; kept in
// localStorage, off unless turned on: the walk's sizes are far below any GPU's crossover).
import { STRINGS, format } from './strings.js';
import { element } from './dom-sync.js';

/** localStorage key of the page's probe setting ('on' or absent). */
export const PROBE_SETTING_KEY = 'attention-playground:page:gpu-probe';

/** Whether the learner turned the crossover probe on (persisted); false where storage is refused. */
export function probeSetting() {
  try {
    return globalThis.localStorage?.getItem(PROBE_SETTING_KEY) === 'on';
  } catch {
    return false;
  }
}

function storeProbeSetting(on) {
  try {
    if (on) globalThis.localStorage?.setItem(PROBE_SETTING_KEY, 'on');
    else globalThis.localStorage?.removeItem(PROBE_SETTING_KEY);
  } catch {
    // storage refused (a sandboxed embed): the setting lasts for this page only
  }
}

/**
 * Builds the panel into `container`.
 * @param {HTMLElement} container
 * @param {{loadAuto: (extra?: object) => Promise<object>, reloadAuto: () => void, changed: () => void}} hooks
 *   loadAuto: the page's 'auto' Attention object (loaded with `extra` options when it must be loaded again);
 *   reloadAuto: forget the loaded one (its options changed); changed: recompute and repaint the step
 * @returns {{panel: HTMLElement, show: (api: object|null, visible: boolean) => void}}
 */
export function createCrossoverControls(container, { loadAuto, reloadAuto, changed }) {
  const text = STRINGS.crossover;
  const panel = element('details', { class: 'gpu-crossover', 'data-gpu-crossover': '' });
  const summary = element('summary', {}, text.summary);
  const reason = element('p', { class: 'crossover-reason', 'data-crossover-reason': '' });
  const form = element('form', { class: 'crossover-form', novalidate: '' }); // the API's own words for a bad number
  const input = element('input', { type: 'number', id: 'gpu-crossover-n', min: '1', step: '1', inputmode: 'numeric', 'data-crossover-input': '' });
  const setButton = element('button', { type: 'submit', 'data-crossover-set': '' }, text.set);
  const clearButton = element('button', { type: 'button', 'data-crossover-clear': '' }, text.clear);
  form.append(element('label', { for: 'gpu-crossover-n' }, text.inputLabel), input, setButton, clearButton);
  const probe = element('input', { type: 'checkbox', id: 'gpu-probe', 'data-crossover-probe': '' });
  probe.checked = probeSetting();
  const probeLabel = element('label', { for: 'gpu-probe', class: 'crossover-probe' });
  probeLabel.append(probe, ` ${text.probe}`);
  const message = element('p', { class: 'crossover-message', role: 'status', 'data-crossover-message': '' });
  // The open panel's body: under the summary, over the page at header widths where the backend box shares a
  // line (playground.css), in the flow on narrow screens.
  const body = element('div', { class: 'crossover-body' });
  body.append(reason, form, probeLabel, message);
  panel.append(summary, body);
  panel.addEventListener('keydown', (event) => { // Escape closes the open panel, back on its summary
    if (event.key !== 'Escape' || !panel.open) return;
    panel.open = false;
    summary.focus();
  });
  container.append(panel);

  const say = (words) => { message.textContent = words; };
  const act = (work) => work().then(changed, (error) => say(error.message));

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    act(async () => {
      const value = input.value.trim() === '' ? Number.NaN : Number(input.value);
      (await loadAuto()).setGpuCrossover(value); // checks the value (a bad one is its Error, shown as is) and stores it
      // Loaded again, 'auto' finds the stored record: it routes by it, with onBackendChange (a routing backend
      // that had nothing to route at load has none).
      reloadAuto();
      let api = await loadAuto();
      if (api.gpuCrossover?.source !== 'set') {
        // Nothing stored: 'auto' had not even asked for the adapter (probing off, nothing measured), or the
        // browser refuses storage. Ask now, then set (kept for this page where storage is refused).
        reloadAuto();
        api = await loadAuto({ gpuCrossover: { thresholdN: value } });
        api.setGpuCrossover(value);
      }
      say(api.gpuCrossover?.source === 'set' ? format(text.setDone, { n: value }) : format(text.noAdapter, { reason: api.gpuCrossover?.reason ?? '' }));
    });
  });
  clearButton.addEventListener('click', () => act(async () => {
    (await loadAuto()).clearGpuCrossover?.();
    reloadAuto(); // nothing stored now: 'auto' may be plain WASM again, without asking for the adapter
    say(text.cleared);
  }));
  probe.addEventListener('change', () => act(async () => {
    storeProbeSetting(probe.checked);
    reloadAuto();
    say(probe.checked ? text.probeOn : text.probeOff);
  }));

  return {
    panel,
    show(api, visible) {
      // Written only when they change: this runs on every repaint.
      if (panel.hidden !== !visible) panel.hidden = !visible;
      const crossover = api?.gpuCrossover;
      const words = crossover ? format(STRINGS.badgeCrossover, crossover) : text.none;
      if (reason.textContent !== words) reason.textContent = words;
      if (crossover?.thresholdN && document.activeElement !== input) input.value = String(crossover.thresholdN);
    },
  };
}
