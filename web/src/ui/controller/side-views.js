// The views beside the walk's step, each loaded when first needed (the walk does not pay for them): the Training
// tab and step 12's demo (training/view.js), step 10's English heads (model=trained), the Real model view.
import { STRINGS, format } from '../strings.js';

/** The steps that show the English model's heads panel (its head labels and switches) with model=trained. */
const HEADS_PANEL_STEPS = ['multihead', 'cross'];

export function createSideViews(page) {
  const { shell } = page;
  let trainingModule = null;
  let trainingTab = null;
  let learnDemo = null;
  const trainingListeners = new Set();
  const fromControl = (changes) => page.loadState(changes, { fromControl: true });
  function withTraining(make) {
    trainingModule ??= import('../training/view.js');
    return trainingModule.then(make);
  }
  function trainingNotice(text) { page.showNotices([text]); }
  function watchProgress(view) {
    view.onProgress((progress) => { for (const listener of trainingListeners) listener(progress); });
    return view;
  }

  // Steps 10 and 11 with model=trained: the English model's heads, loaded when first shown (step 10 draws them in
  // its picture, step 11 under it: its picture is the cross-attention the model never does itself).
  let headsPanel = null;
  function syncHeads() {
    const { state } = page;
    const visible = state.view !== 'train' && HEADS_PANEL_STEPS.includes(state.step) && state.model === 'trained';
    if (!visible && !headsPanel) return Promise.resolve(null);
    return import('../trained/heads-panel.js').then(({ createHeadsPanel }) => {
      headsPanel ??= createHeadsPanel({ update: fromControl });
      if (headsPanel.node.parentNode !== shell.headsSlot) shell.headsSlot.replaceChildren(headsPanel.node);
      return headsPanel.sync(page.state, visible).then(() => headsPanel);
    });
  }

  // A model trained on the tab's text task becomes the walk's "trained" weights, if it knows every word.
  function carryToWalk(bytes, vocabulary) {
    return page.trainedWalk.carry(bytes, vocabulary, page.state.sentence).then(({ missing }) => {
      if (missing) {
        page.showNotices([format(STRINGS.training.carryMissing, { words: missing.map((w) => `“${w}”`).join(', ') })]);
        return;
      }
      page.loadState({ view: 'walk', step: 'weights', model: 'trained' }, { push: true, force: true });
      page.renderStep();
    }).catch(page.showError);
  }

  function syncTraining({ fromControl: changedByControl = false } = {}) {
    syncHeads().catch(page.showError);
    const { state } = page;
    const tab = state.view === 'train';
    const demo = !tab && state.step === 'learn';
    // The tab's run goes on in its worker while the learner reads the walk; it is drawn again when shown.
    trainingTab?.setVisible(tab);
    if (!demo) {
      learnDemo?.pause();
      if (shell.learnSlot.firstChild) shell.learnSlot.replaceChildren();
    }
    if (!tab && !demo) return Promise.resolve(null);
    return withTraining(({ createTrainingView }) => {
      const onUpdate = (changes, options = {}) => page.loadState(changes, { fromControl: true, ...options });
      const { loadOptions } = page;
      if (page.state.view === 'train') {
        trainingTab ??= watchProgress(createTrainingView({ mode: 'tab', update: onUpdate, notice: trainingNotice, loadOptions, carry: carryToWalk }));
        if (trainingTab.node.parentNode !== shell.trainingRoot) shell.trainingRoot.replaceChildren(trainingTab.node);
        trainingTab.sync(page.state, { fromControl: changedByControl });
        return trainingTab;
      }
      if (page.state.step === 'learn') {
        learnDemo ??= watchProgress(createTrainingView({ mode: 'demo', update: onUpdate, notice: trainingNotice, loadOptions }));
        if (learnDemo.node.parentNode !== shell.learnSlot) shell.learnSlot.replaceChildren(learnDemo.node);
        learnDemo.sync(page.state, { fromControl: changedByControl });
        return learnDemo;
      }
      return null;
    });
  }

  // The Real model view (view=model, real-model/view.js), loaded when first opened.
  let realModel = null;
  function syncModel() {
    const shown = page.state.view === 'model';
    realModel?.setVisible(shown);
    if (!shown) return;
    import('../real-model/view.js').then(({ createRealModelView }) => {
      realModel ??= createRealModelView({ update: fromControl, loadOptions: page.loadOptions });
      if (realModel.node.parentNode !== shell.modelRoot) shell.modelRoot.replaceChildren(realModel.node);
      realModel.setVisible(page.state.view === 'model');
      realModel.sync(page.state);
    });
  }

  return {
    syncHeads,
    syncTraining,
    syncModel,
    /** The training view on screen if it is already loaded, else null (synchronous, for polling). */
    trainingView: () => (page.state.view === 'train' ? trainingTab : page.state.step === 'learn' ? learnDemo : null),
    /** Calls `listener({step, loss})` after every chunk of training steps. */
    onTrainProgress(listener) {
      trainingListeners.add(listener);
      return () => trainingListeners.delete(listener);
    },
  };
}
