// The code editor: CodeMirror 6 (@codemirror/view, state, language, autocomplete and lang-javascript),
// loaded only when a write or fix exercise opens (a dynamic import of this module). Tab is left to the
// browser, so the keyboard can always move on; the editable area carries a label for screen readers.
//
// The `codemirror` package in this project's lockfile is 6.65.7, which is CodeMirror 5's code published
// under a 6.x number, not CodeMirror 6's `basicSetup` package (6.0.x), and @codemirror/commands is not
// installed; so the setup below is put together from the CodeMirror 6 packages that are, with Enter
// (newline and indentation) and undo/redo written here.
import { EditorSelection, EditorState } from '@codemirror/state';
import {
  EditorView, drawSelection, highlightActiveLine, highlightActiveLineGutter, highlightSpecialChars, keymap, lineNumbers,
} from '@codemirror/view';
import {
  bracketMatching, defaultHighlightStyle, getIndentation, indentOnInput, indentString, syntaxHighlighting,
} from '@codemirror/language';
import { autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap } from '@codemirror/autocomplete';
import { javascript } from '@codemirror/lang-javascript';

/** Enter: a new line indented as the language says (CodeMirror's insertNewlineAndIndent, in short). */
function newlineAndIndent(view) {
  const { state } = view;
  view.dispatch(state.changeByRange((range) => {
    const indent = getIndentation(state, range.from) ?? 0;
    const insert = `\n${indentString(state, indent)}`;
    return { changes: { from: range.from, to: range.to, insert }, range: EditorSelection.cursor(range.from + insert.length) };
  }), { scrollIntoView: true, userEvent: 'input' });
  return true;
}

/** Undo and redo over whole documents: small texts, so a snapshot per change group is enough. */
function snapshotHistory() {
  const done = [];
  const undone = [];
  let lastTime = 0;
  const restore = (from, to) => (view) => {
    const entry = from.pop();
    if (!entry) return true;
    to.push({ doc: view.state.doc.toString(), anchor: view.state.selection.main.anchor });
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: entry.doc }, selection: { anchor: Math.min(entry.anchor, entry.doc.length) }, userEvent: 'history' });
    return true;
  };
  const listener = EditorView.updateListener.of((update) => {
    if (!update.docChanged || update.transactions.some((t) => t.isUserEvent('history'))) return;
    const now = Date.now();
    if (now - lastTime > 600 || done.length === 0) done.push({ doc: update.startState.doc.toString(), anchor: update.startState.selection.main.anchor });
    if (done.length > 200) done.shift();
    undone.length = 0;
    lastTime = now;
  });
  const undo = restore(done, undone);
  const redo = restore(undone, done);
  return [listener, keymap.of([{ key: 'Mod-z', run: undo }, { key: 'Mod-y', run: redo }, { key: 'Mod-Shift-z', run: redo }])];
}

export function createEditor(parent, { doc, label, onChange }) {
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        lineNumbers(), highlightActiveLineGutter(), highlightSpecialChars(), drawSelection(), highlightActiveLine(),
        EditorState.allowMultipleSelections.of(false), indentOnInput(), bracketMatching(), closeBrackets(), autocompletion(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }), javascript(), snapshotHistory(),
        keymap.of([{ key: 'Enter', run: newlineAndIndent }, ...closeBracketsKeymap, ...completionKeymap]),
        EditorView.contentAttributes.of({ 'aria-label': label }),
        EditorView.updateListener.of((update) => { if (update.docChanged) onChange?.(update.state.doc.toString()); }),
      ],
    }),
  });
  return {
    get value() {
      return view.state.doc.toString();
    },
    set value(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    focus: () => view.focus(),
  };
}
