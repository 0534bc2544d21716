// Training a model on a text in its own tokens (the Training tab's "real English" task, docs/api.md "Models"):
// the ids are split once into a training part and a held-out tail; batches are random windows of the training
// part, the held-out batch covers the tail, so the held-out loss is on tokens never trained on.
import { batchRandom } from '../train/tasks.js';

/** The held-out share of a text's tokens (its tail). */
export const TEXT_HELD_OUT_SHARE = 0.2;

const fail = (message) => { throw new Error(`textTask: ${message}`); };

/**
 * textTask(ids, {contextLength, heldOutShare [0.2]}) → {train, heldOut, length, batch({batch, seed, step}), heldOutBatch()}.
 * ids: the text's token ids (at least 4). The last ⌈share·n⌉ ids (at least 2) are held out; the rest (at least 2)
 * are trained on. Windows are length + 1 ids with length = min(contextLength, train.length − 1);
 * batch(…) draws `batch` windows at offsets from batchRandom(seed, step) (makeBatch's stream); heldOutBatch()
 * cuts the held-out ids into consecutive windows of the same length overlapping by one id, so each held-out id
 * but the first is a target exactly once (the last row padded with targets −100).
 */
export function textTask(ids, { contextLength, heldOutShare = TEXT_HELD_OUT_SHARE } = {}) {
  if (!(ids instanceof Int32Array || Array.isArray(ids)) || ids.length < 4) fail(`ids has ${ids?.length} tokens; expected at least 4`);
  if (!Number.isInteger(contextLength) || contextLength < 1) fail(`contextLength=${contextLength}; expected an integer ≥ 1`);
  if (!(heldOutShare > 0 && heldOutShare < 1)) fail(`heldOutShare=${heldOutShare}; expected a number between 0 and 1`);
  const all = Int32Array.from(ids);
  const held = Math.min(all.length - 2, Math.max(2, Math.ceil(heldOutShare * all.length)));
  const train = all.subarray(0, all.length - held);
  const heldOut = all.subarray(all.length - held);
  const length = Math.min(contextLength, train.length - 1);

  function batch({ batch: B, seed = 0, step = 0 }) {
    const next = batchRandom(seed, step);
    const inputs = new Int32Array(B * length);
    const targets = new Int32Array(B * length);
    const starts = train.length - length; // window start in 0 … train.length − length − 1
    for (let b = 0; b < B; b++) {
      const s = Math.floor(next() * starts);
      inputs.set(train.subarray(s, s + length), b * length);
      targets.set(train.subarray(s + 1, s + length + 1), b * length);
    }
    return { inputs: { data: inputs, shape: [B, length] }, targets: { data: targets, shape: [B, length] } };
  }

  function heldOutBatch() {
    const T = Math.min(length, heldOut.length - 1);
    const rows = Math.ceil((heldOut.length - 1) / T);
    const inputs = new Int32Array(rows * T);
    const targets = new Int32Array(rows * T).fill(-100);
    for (let r = 0; r < rows; r++) {
      const s = r * T;
      const n = Math.min(T, heldOut.length - 1 - s);
      inputs.set(heldOut.subarray(s, s + n), r * T);
      targets.set(heldOut.subarray(s + 1, s + n + 1), r * T);
    }
    return { inputs: { data: inputs, shape: [rows, T] }, targets: { data: targets, shape: [rows, T] } };
  }

  return { train, heldOut, length, batch, heldOutBatch };
}
