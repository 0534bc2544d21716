// The attention passes' staging (fused-attention.wgsl.js, train/attention-lse.wgsl.js,
// train/attention-backward.wgsl.js): the rows a workgroup's query rows all loop over (keys and values, or
// queries and output gradients) are staged KEY_TILE at a time in two workgroup tiles, each element read once
// from its storage buffer for the whole workgroup instead of once per row. Written once here and included.

/**
 * Rows staged per tile: the two tiles, (KEY_TILE, HEAD_DIM_MAX) floats each, fit together in the 16 KiB of
 * workgroup memory every adapter offers (16 rows up to d_head 128, 8 at 256).
 * @param {number} headDimMax
 */
export function keyTileRows(headDimMax) {
  return Math.max(1, Math.min(16, Math.floor(16384 / (2 * 4 * headDimMax))));
}

/**
 * The constants HEAD_DIM_MAX (fixed when the text is built: private arrays need a constant size) and
 * KEY_TILE, and the two workgroup tiles `names` of (KEY_TILE, HEAD_DIM_MAX) floats.
 * @param {number} headDimMax the largest d_head the pipeline serves
 * @param {[string, string]} names
 */
export function keyTiles(headDimMax, [a, b]) {
  return /* wgsl */ `const HEAD_DIM_MAX: u32 = ${headDimMax}u;
const KEY_TILE: u32 = ${keyTileRows(headDimMax)}u;

var<workgroup> ${a}: array<f32, KEY_TILE * HEAD_DIM_MAX>;
var<workgroup> ${b}: array<f32, KEY_TILE * HEAD_DIM_MAX>;`;
}

/**
 * WGSL statements that stage rows `start` … start + KEY_TILE − 1 of two operands into the tiles, `width`
 * columns each, zeros from row `count` on; the workgroup's WORKGROUP_SIZE invocations (`local`) stride over
 * the slots; a barrier ends it, so every invocation must reach it. `into`: [[tile, read, address], …] for
 * the two operands, address(row) the WGSL expression of a row's first element for `read`.
 * @param {{start: string, count: string, width: string, into: [string, string, (row: string) => string][]}} staging
 */
export function stageTiles({ start, count, width, into }) {
  const [[tileA, readA, addressA], [tileB, readB, addressB]] = into;
  return /* wgsl */ `for (var slot = local.x; slot < KEY_TILE * ${width}; slot += WORKGROUP_SIZE) {
      let stagedRow = ${start} + slot / ${width};
      let column = slot % ${width};
      var valueA = 0.0;
      var valueB = 0.0;
      if (stagedRow < ${count}) {
        valueA = ${readA}(${addressA('stagedRow')} + column);
        valueB = ${readB}(${addressB('stagedRow')} + column);
      }
      ${tileA}[slot] = valueA;
      ${tileB}[slot] = valueB;
    }
    workgroupBarrier();`;
}
