// A Web Worker of GPT-2 on workers (worker-model.js): its own instance of the WASM core and one share of the
// model (shard-host.js). Plain postMessage and MessagePorts, no SharedArrayBuffer: no cross-origin isolation
// needed. Each message is answered {id, ...answer} or {id, error} (worker-pool.js's protocol).
import { instantiateInWorker } from '../core/backends/worker-module.js';
import { createShardHost } from './shard-host.js';

const host = createShardHost((build) => instantiateInWorker(build, 'gpt2 worker'));

self.onmessage = async ({ data: message }) => {
  try {
    const { answer, transfer } = await host.handle(message);
    self.postMessage({ id: message.id, ...answer }, transfer);
  } catch (error) {
    self.postMessage({ id: message.id, error: error?.message ?? String(error) });
  }
};
