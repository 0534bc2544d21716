// What the page says outside the picture: notices the learner dismisses, and the error that replaces the results.
import { STRINGS, format } from '../strings.js';

export function showNotices(shell, messages) {
  for (const message of messages) {
    const notice = document.createElement('p');
    notice.className = 'notice';
    notice.textContent = message;
    const dismiss = document.createElement('button');
    dismiss.type = 'button';
    dismiss.textContent = STRINGS.dismiss;
    dismiss.setAttribute('aria-label', `${STRINGS.dismiss}: ${message}`);
    dismiss.addEventListener('click', () => notice.remove());
    notice.append(' ', dismiss);
    shell.notices.append(notice);
  }
}

/** Shows `error` in place of the results, or hides the error line when `error` is null. */
export function showError(shell, error) {
  if (shell.error.hidden !== !error) shell.error.hidden = !error;
  const text = error ? format(STRINGS.error, { message: error.message }) : '';
  if (shell.error.textContent !== text) shell.error.textContent = text;
  if (error) {
    shell.results.replaceChildren();
    if (shell.headsSlot.parentNode !== shell.main) shell.main.insertBefore(shell.headsSlot, shell.learnSlot);
  }
}
