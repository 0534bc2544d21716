// Column sums: out[offsetOut + c] = scale · Σ_r a[r·rowStride + c] (· b[r·rowStride + c] when params.product = 1), for
// c < cols, r < rows. The bias gradients (Σ over the B·T rows of dy), LayerNorm's γ and β gradients
// (Σ dy·x̂, Σ dy), the positional embedding's gradient (rows = B, rowStride = T·d, cols = T·d) and the mean
// loss (cols = 1) are all this kernel. One invocation per column walks the rows in order: the sums are
// deterministic and neighbouring invocations read neighbouring addresses.
import { boundedReads, f32, passHead, perElement, u32, uniforms } from '../wgsl.js';

export const COLUMN_SUM_UNIFORMS = uniforms([...u32('rows', 'cols', 'rowStride', 'product'), ...f32('scale'), ...u32('offsetA', 'offsetOut')]);

export const columnSumWgsl = /* wgsl */ `
${passHead(COLUMN_SUM_UNIFORMS, 64, [['a', 'read'], ['b', 'read'], ['sums', 'read_write']])}

${boundedReads(['readA', 'a'])}
fn readB(index: u32) -> f32 {
  if (params.product == 0u) { return 1.0; }
  if (index < arrayLength(&b)) { return b[index]; }
  return 0.0;
}
${perElement(`
  let c = index;
  if (c >= params.cols || params.offsetOut + c >= arrayLength(&sums)) { return; }
  var sum = 0.0;
  for (var r = 0u; r < params.rows; r++) {
    let index = r * params.rowStride + c;
    sum += readA(params.offsetA + index) * readB(index);
  }
  sums[params.offsetOut + c] = sum * params.scale;`)}
`;
