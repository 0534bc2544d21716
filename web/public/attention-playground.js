// <attention-playground step="causal" t="8" hide="code"> — the playground in any page, from this one ES
// module, without a framework. The element holds an <iframe> of the playground page (index.html
// beside this file, or the `src` attribute) in embed mode, passes its attributes as URL parameters
// (the page parses them strictly: a bad value falls back to the default with a visible notice), sizes
// itself from the height the page reports, and forwards the postMessage API as methods:
//
//   element.setState({T: 8}) → Promise<string[]>   notices for rejected values
//   element.getState()       → Promise<object>
//   element.getTensors()     → Promise<{step, backend, tensors: {name: {shape, data}}, error}>
//   element.next(), element.previous()
//   element.trainStart(), element.trainPause(), element.trainStep()   the Training tab (view="train") or step 12
//   element.getRun()         → Promise<{config, step, losses}>
//
// Events: 'exercise' (detail: {id, action, outcome, attempts}) after a check, hint or revealed solution
// in an exercise (exercise="ID" shows one); 'ready' and 'rendered' (detail: {step}) when the playground has
// drawn a step; 'train-progress' (detail: {step, loss}) after every chunk of training steps. The methods
// wait for 'ready', so they may be called at once. `loading="lazy"` defers the frame until it nears
// the viewport (then the methods wait for that too).
// Attributes are the page's URL parameters in kebab case (d-model → dModel, t → T); the Training tab's
// (view="train", train-task, train-layers, …) and step 12's learn-task keep their names.

const PREFIX = 'attention-playground:';
const PARAMETERS = [
  'step', 'sentence', 'context', 't', 'd-model', 'd-out', 'heads', 'seed', 'layout', 'normalization', 'causal', 'mask',
  'scale', 'temperature', 'dropout', 'dropout-seed', 'edits', 'backend', 'hide', 'lock', 'exercise',
  'view', 'learn-task', 'train-task', 'train-text', 'train-layers', 'train-heads', 'train-d-model', 'train-context',
  'train-lr', 'train-wd', 'train-batch', 'train-seed', 'train-steps',
];

function parameterName(attribute) {
  if (attribute === 't') return 'T';
  if (attribute.startsWith('train-') || attribute === 'learn-task') return attribute;
  return attribute.replace(/-([a-z])/g, (_, letter) => letter.toUpperCase());
}

class AttentionPlaygroundElement extends HTMLElement {
  static get observedAttributes() {
    return [...PARAMETERS, 'src', 'loading'];
  }

  #frame = null;
  #pending = new Map();
  #nextId = 1;
  #onMessage = (event) => this.#receive(event);

  connectedCallback() {
    if (!this.shadowRoot) {
      const root = this.attachShadow({ mode: 'open' });
      const style = document.createElement('style');
      style.textContent = ':host{display:block}iframe{display:block;width:100%;border:0;min-height:240px;height:480px}';
      this.#frame = document.createElement('iframe');
      this.#frame.title = this.getAttribute('title') || 'Attention Playground';
      this.#frame.loading = this.getAttribute('loading') === 'lazy' ? 'lazy' : 'eager';
      root.append(style, this.#frame);
    }
    window.addEventListener('message', this.#onMessage);
    this.#load();
  }

  disconnectedCallback() {
    window.removeEventListener('message', this.#onMessage);
  }

  attributeChangedCallback() {
    if (this.#frame) this.#load();
  }

  /** The page URL for the current attributes. */
  get pageUrl() {
    const url = new URL(this.getAttribute('src') || './index.html', this.getAttribute('src') ? document.baseURI : import.meta.url);
    url.searchParams.set('embed', '1');
    for (const attribute of PARAMETERS) {
      if (this.hasAttribute(attribute)) url.searchParams.set(parameterName(attribute), this.getAttribute(attribute));
    }
    // The page only answers messages from origins it is told about: this page's origin.
    if (location.origin !== 'null') url.searchParams.set('origin', location.origin);
    return url;
  }

  #load() {
    const url = this.pageUrl;
    this.#target = url.origin;
    if (this.#frame.src !== url.href) {
      this.#ready = new Promise((resolve) => { this.#markReady = resolve; });
      this.#frame.src = url.href;
    }
  }

  #target = '*';
  #ready = null;
  #markReady = () => {};

  #receive(event) {
    if (!this.#frame || event.source !== this.#frame.contentWindow) return;
    const message = event.data;
    if (!message || typeof message.type !== 'string' || !message.type.startsWith(PREFIX)) return;
    const kind = message.type.slice(PREFIX.length);
    if (kind === 'height' && Number.isFinite(message.height)) {
      this.#frame.style.height = `${Math.min(Math.max(message.height, 120), 20000)}px`;
    } else if (kind === 'train-progress') {
      this.dispatchEvent(new CustomEvent('train-progress', { detail: { step: message.step, loss: message.loss } }));
    } else if (kind === 'ready' || kind === 'rendered') {
      if (kind === 'ready') this.#markReady();
      this.dispatchEvent(new CustomEvent(kind, { detail: { step: message.step } }));
    } else if (kind === 'exercise') {
      const { id, action, outcome, attempts } = message;
      this.dispatchEvent(new CustomEvent('exercise', { detail: { id, action, outcome, attempts } }));
    } else if (message.id && this.#pending.has(message.id)) {
      this.#pending.get(message.id)(message);
      this.#pending.delete(message.id);
    }
  }

  async #send(type, body = {}) {
    await this.#ready;
    const id = `${this.#nextId++}`;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      this.#frame.contentWindow.postMessage({ type: `${PREFIX}${type}`, id, ...body }, this.#target);
    });
  }

  setState(state) {
    return this.#send('set', { state }).then((reply) => reply.notices);
  }

  getState() {
    return this.#send('get-state').then((reply) => reply.state);
  }

  getTensors() {
    return this.#send('get-tensors').then(({ step, backend, tensors, error }) => ({ step, backend, tensors, error }));
  }

  async next() {
    await this.#ready;
    this.#frame.contentWindow.postMessage({ type: `${PREFIX}next` }, this.#target);
  }

  async previous() {
    await this.#ready;
    this.#frame.contentWindow.postMessage({ type: `${PREFIX}previous` }, this.#target);
  }

  async #post(type) {
    await this.#ready;
    this.#frame.contentWindow.postMessage({ type: `${PREFIX}${type}` }, this.#target);
  }

  trainStart() { return this.#post('train-start'); }

  trainPause() { return this.#post('train-pause'); }

  trainStep() { return this.#post('train-step'); }

  getRun() {
    return this.#send('get-run').then(({ config, step, losses }) => ({ config, step, losses }));
  }
}

if (!customElements.get('attention-playground')) customElements.define('attention-playground', AttentionPlaygroundElement);
