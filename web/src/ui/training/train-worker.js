// The Training tab's Web Worker (a module worker): one training session (engine.js) off the page's thread,
// so the page keeps its repaint budget while a run goes on. Replies carry the message's id.
import { createSession } from './engine.js';

const session = createSession();
let queue = Promise.resolve();
self.addEventListener('message', (event) => {
  const { id, message } = event.data;
  // One message at a time, in order: a step never overlaps a save or a reset.
  queue = queue.then(async () => {
    try {
      const result = await session.handle(message);
      self.postMessage({ id, result }, result?.bytes ? [result.bytes.buffer] : []);
    } catch (error) {
      self.postMessage({ id, error: error.message });
    }
  });
});
self.postMessage({ ready: true });
