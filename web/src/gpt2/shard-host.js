// What a GPT-2 worker does (gpt2-worker.js runs it in a Web Worker; the unit tests run it in-process): it holds
// one share of the model (cpp/kernels/gpt2_shard.h, cut by worker-plan.js) and runs the whole forward, block
// after block, exchanging its (T, C) partial sums with the other workers directly over MessagePorts: the
// calling thread sends x₀ and gets back this share's logits columns, and waits for nothing in between.
//
// Messages, each answered with {answer, transfer}:
//   {type: 'load', build, wasmBinary?, tileBinary?, …}  → {relaxed}: the WASM module (worker-module.js)
//   {type: 'shard', config, share, k, parts, vectors, ports} → {}: this worker is k of `parts`, ports[j]
//       reaches worker j
//   {type: 'matrices', from, arrays}  → {}: matrices from, from + 1, … of the share, staged and packed
//   {type: 'forward', x, T, attention, headsOff} → {logits (T, v1 − v0), weights: [layer] (h1 − h0, T, T) | null}

/** An Error from the core's value-returned ones. */
function unwrap(result) {
  if (result instanceof Error) throw result;
  return result;
}

/**
 * A host for one share. instantiate(load message) → Promise<{core, relaxed}>: the worker's WASM module.
 * @returns {{handle(message): Promise<{answer: object, transfer: Transferable[]}>}}
 */
export function createShardHost(instantiate) {
  let shard = null;
  let k = 0;
  let layers = 0;
  const peers = []; // [j] → {port, queue, waiting}

  function listen(j, port) {
    const peer = { port, queue: [], waiting: null };
    port.onmessage = ({ data }) => {
      if (peer.waiting) { const resolve = peer.waiting; peer.waiting = null; resolve(data); } else peer.queue.push(data);
    };
    peers[j] = peer;
  }

  const receive = (peer) => (peer.queue.length ? Promise.resolve(peer.queue.shift()) : new Promise((resolve) => { peer.waiting = resolve; }));

  /** Sends this worker's part to every peer, writes theirs into the shard, then x += Σ parts + bias. */
  async function exchange(layer, stage) {
    const others = peers.map((peer, j) => j).filter((j) => peers[j]);
    others.forEach((j, n) => {
      const mine = shard.part(k).slice();
      peers[j].port.postMessage(mine, n === others.length - 1 ? [mine.buffer] : []);
    });
    for (const j of others) {
      const theirs = await receive(peers[j]);
      shard.part(j).set(theirs); // a view taken after the wait, as every view of the heap: never across a call
    }
    shard.addParts(layer, stage);
  }

  let core = null;

  async function load(build) {
    let relaxed;
    ({ core, relaxed } = await instantiate(build));
    return { relaxed };
  }

  function createShard({ config, share, parts, vectors, ports, k: index }) {
    ({ layers } = config);
    k = index;
    shard = new core.Gpt2Shard({ ...config, ...share, parts });
    shard.parameters().set(vectors);
    Object.entries(ports).forEach(([j, port]) => listen(Number(j), port));
    return {};
  }

  function matrices({ from, arrays }) {
    arrays.forEach((array, n) => {
      unwrap(shard.stage(from + n)).set(array);
      unwrap(shard.packStaged(from + n));
    });
    if (from + arrays.length === shard.matrixCount()) shard.releaseStaging();
    return {};
  }

  async function forward({ x, T, attention, headsOff }) {
    unwrap(shard.begin(T, attention, headsOff));
    shard.residual().set(x);
    for (let l = 0; l < layers; l++) {
      shard.attention(l, k);
      await exchange(l, 0);
      shard.mlp(l, k);
      await exchange(l, 1);
    }
    const logits = shard.logits().slice();
    const weights = attention ? Array.from({ length: layers }, (_, l) => shard.attentionWeights(l).slice()) : null;
    return { logits, weights };
  }

  return {
    async handle(message) {
      if (message.type === 'load') return { answer: await load(message), transfer: [] };
      if (message.type === 'shard') return { answer: createShard(message), transfer: [] };
      if (message.type === 'matrices') return { answer: matrices(message), transfer: [] };
      if (message.type === 'forward') {
        const answer = await forward(message);
        return { answer, transfer: [answer.logits.buffer, ...(answer.weights ?? []).map((w) => w.buffer)] };
      }
      throw new Error(`gpt2-worker: unknown message type ${JSON.stringify(message.type)}`);
    },
    dispose() {
      shard?.delete();
      shard = null;
      for (const peer of peers) peer?.port.close();
    },
  };
}
