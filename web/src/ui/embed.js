// The postMessage API of an embedded playground (an <iframe> or the custom element), for course pages
// and automated tests. Messages are objects with a `type` in the "attention-playground:" namespace:
//
//   in   {type: 'attention-playground:set', state: {step: 'causal', T: 8, …}, id?}
//          → {type: 'attention-playground:notices', id, notices: string[]}  (what was rejected)
//        {type: 'attention-playground:get-state', id?}   → {type: '…:state', id, state}
//        {type: 'attention-playground:get-tensors', id?} → {type: '…:tensors', id, step, backend, tensors, error}
//          tensors: {name: {shape: number[], data: number[]}} as shown on the current step
//        {type: 'attention-playground:next'} / {type: 'attention-playground:previous'}
//        {type: 'attention-playground:train-start'} / '…:train-pause' / '…:train-step' (one step): the training
//          view on screen (the Training tab, view=train, or step 12's demo)
//        {type: 'attention-playground:get-run', id?} → {type: '…:run', id, config, step, losses}
//   out  {type: 'attention-playground:train-progress', step, loss}  after every chunk of training steps
//   out  {type: 'attention-playground:ready', step}, {type: 'attention-playground:rendered', step},
//        {type: 'attention-playground:height', height}  (to the parent window)
//        {type: 'attention-playground:exercise', id, action, outcome, attempts}  (exercises/ui/events.js:
//          only to the origins in `origin=`, to none when it lists none; docs/exercises.md)
//
// Only messages from allowed origins are read: this page's own origin and those listed in the URL's
// `origin=` parameter by the embedding page. Everything else is ignored. Replies go to the sender's
// origin only. Height and step notices carry nothing private and go to the listed origins (or to any
// parent when none is listed, so a plain iframe can size itself).

import { STRINGS, format } from './strings.js';

const PREFIX = 'attention-playground:';

function jsonNumber(value) {
  if (Number.isFinite(value)) return value;
  return Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity';
}

/** The tensors shown on the current step, as plain JSON-safe objects. */
export function shownTensors(run) {
  const tensors = {};
  for (const view of run?.result?.tensors ?? []) {
    tensors[view.name] = { shape: [...view.tensor.shape], data: Array.from(view.tensor.data, jsonNumber) };
  }
  return tensors;
}

/**
 * Wires the postMessage API to a started playground.
 * @param {object} playground what startPlayground returned
 * @param {string[]} allowedOrigins from the `origin=` URL parameter
 */
export function startEmbedApi(playground, allowedOrigins) {
  const allowed = new Set([location.origin, ...allowedOrigins]);
  const embedded = window.parent !== window;
  const toParent = (message) => {
    if (!embedded) return;
    const targets = allowedOrigins.length ? allowedOrigins : ['*'];
    for (const origin of targets) window.parent.postMessage(message, origin);
  };

  window.addEventListener('message', (event) => {
    if (!allowed.has(event.origin) || !event.source) return;
    const message = event.data;
    if (!message || typeof message !== 'object' || typeof message.type !== 'string' || !message.type.startsWith(PREFIX)) return;
    const reply = (body) => event.source.postMessage({ id: message.id ?? null, ...body }, event.origin);
    switch (message.type.slice(PREFIX.length)) {
      case 'set':
        reply({ type: `${PREFIX}notices`, notices: playground.setState(message.state) });
        break;
      case 'get-state':
        reply({ type: `${PREFIX}state`, state: playground.getState() });
        break;
      case 'get-tensors': {
        const run = playground.lastRun();
        reply({ type: `${PREFIX}tensors`, step: run?.state.step ?? null, backend: run?.backend ?? null, tensors: shownTensors(run), error: run?.error ?? null });
        break;
      }
      case 'next':
        playground.next();
        break;
      case 'train-start':
      case 'train-pause':
      case 'train-step': {
        const action = { 'train-start': 'play', 'train-pause': 'pause', 'train-step': 'step' }[message.type.slice(PREFIX.length)];
        playground.training().then(async (view) => {
          if (!view) {
            reply({ type: `${PREFIX}notices`, notices: [STRINGS.training.noView] });
            return;
          }
          await view.ready();
          view[action]();
        });
        break;
      }
      case 'get-run':
        playground.training().then(async (view) => {
          if (view) await view.ready();
          const run = view ? view.getRun() : { config: null, step: 0, losses: [] };
          reply({ type: `${PREFIX}run`, config: run.config, step: run.step, losses: run.losses.map((l) => (l == null ? null : jsonNumber(l))) });
        });
        break;
      case 'previous':
        playground.previous();
        break;
      default:
        reply({ type: `${PREFIX}notices`, notices: [format(STRINGS.state.unknownMessage, { type: JSON.stringify(message.type.slice(0, 60)) })] });
    }
  });

  let ready = false;
  let lastHeight = 0;
  const reportHeight = () => {
    // The body's own height, not the document's scroll height: that one never drops below the frame's
    // current height, so a frame could grow but never shrink.
    const height = Math.ceil(document.body.getBoundingClientRect().height);
    if (height !== lastHeight) {
      lastHeight = height;
      toParent({ type: `${PREFIX}height`, height });
    }
  };
  new ResizeObserver(reportHeight).observe(document.body);
  playground.onTrainProgress(({ step, loss }) => toParent({ type: `${PREFIX}train-progress`, step, loss: loss == null ? null : jsonNumber(loss) }));
  playground.onRender((run) => {
    if (!ready) {
      ready = true;
      toParent({ type: `${PREFIX}ready`, step: run.state.step });
    }
    toParent({ type: `${PREFIX}rendered`, step: run.state.step });
    // No height here: the ResizeObserver reports it once the new frame is laid out, while measuring
    // now would force that layout in the middle of the repaint.
  });
}
