// The `attention-playground:exercise` event for the embedding course page: {type, id, action: check |
// hint | solution, outcome: pass | fail | error | unattempted, attempts}. It goes only to the origins
// the embed allows (`origin=`), one postMessage per origin, and to nobody when none is allowed: never '*'.
export const EXERCISE_EVENT = 'attention-playground:exercise';

export function emitExerciseEvent(allowedOrigins, { id, action, outcome, attempts }) {
  if (window.parent === window || !allowedOrigins?.length) return;
  const message = { type: EXERCISE_EVENT, id, action, outcome, attempts };
  for (const origin of allowedOrigins) window.parent.postMessage(message, origin);
}
