// Every text of the exercise views, in one place (the page's own strings.js holds the lesson's).
export const EXERCISE_STRINGS = {
  section: 'Exercises',
  sectionIntro: 'Check yourself: write the step, predict it, or fix a classic bug. Your code runs in a sandbox on this page and is compared with the core at atol + rtol.',
  kinds: { write: 'Write the code', predict: 'Predict', fix: 'Fix the bug' },
  outcomes: { unattempted: 'Not attempted', fail: 'Failed', error: 'Failed (error)', pass: 'Passed' },
  open: 'Open',
  close: 'Close exercise',
  progressLine: '{outcome} · {attempts} attempts · {hints} hints',
  exportProgress: 'Export progress (JSON)',
  check: 'Check',
  checking: 'Checking…',
  hint: 'Hint',
  hintOf: 'Hint {level} of {count}',
  noMoreHints: 'No more hints',
  reveal: 'Reveal solution',
  solutionTitle: 'Solution',
  useSolution: 'Put the solution in the editor',
  signature: 'Your module\'s default export: {name}({params}) → {returns}',
  editorLabel: 'Code editor for {title}',
  caseResult: '{input}: {result}',
  casePass: 'passed (max |error| {error})',
  caseFail: 'failed',
  firstMismatch: 'First differing cell: case “{input}”, position [{position}]: your value {actual}, expected {expected} (atol {atol}, rtol {rtol}).',
  heatmapLabel: 'Heatmap of |your value − expected| for case “{input}”, the first differing cell outlined',
  cellLabel: 'row {row}, column {col}',
  estimateLabel: 'Your estimate of {label}',
  choicesLabel: 'Which heatmap comes next?',
  shownLabel: 'The tensor shown: {label}',
  stopped: 'Stopped: {reason}',
  timeLimit: 'your code ran past the time limit of {seconds} s (an infinite loop?) and was stopped',
  sandboxFailed: 'the sandbox could not run your code: {reason}',
};

/** Fills the {name} slots of a template. */
export function fill(template, values) {
  return template.replace(/\{(\w+)\}/g, (_, key) => String(values[key] ?? ''));
}
