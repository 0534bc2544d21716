// What the WGSL passes share, written once and included: each pass's uniforms declared as [{name, type}], from
// which both its WGSL `Params` struct and the packing of its uniform buffer are generated (onnxruntime-web's
// registerUniforms); its bindings and entry point; the bounds-checked reads; the workgroup reductions; and
// LayerNorm's row statistics.

/** Uniform fields of one type: u32('rows', 'cols') → [{name: 'rows', type: 'u32'}, {name: 'cols', type: 'u32'}]. */
export const u32 = (...names) => names.map((name) => ({ name, type: 'u32' }));
export const f32 = (...names) => names.map((name) => ({ name, type: 'f32' }));

/**
 * A pass's uniforms, declared once as [{name, type: 'u32' | 'f32'}] in buffer order.
 * `struct`: the WGSL `struct Params { … }`; `pack({name: value})`: its buffer, a Uint32Array of whole 16-byte
 * rows (a missing value is 0, a name not declared an Error).
 * @param {{name: string, type: 'u32'|'f32'}[]} fields
 */
export function uniforms(fields) {
  const index = new Map(fields.map(({ name }, i) => [name, i]));
  const words = Math.max(4, Math.ceil(fields.length / 4) * 4);
  return {
    fields,
    struct: `struct Params { ${fields.map(({ name, type }) => `${name}: ${type}`).join(', ')} }`,
    pack(values) {
      const array = new Uint32Array(words);
      const floats = new Float32Array(array.buffer);
      for (const [name, value] of Object.entries(values)) {
        const i = index.get(name);
        if (i === undefined) throw new Error(`webgpu: uniform ${name} is not declared (${fields.map((f) => f.name).join(', ')})`);
        if (fields[i].type === 'f32') floats[i] = value;
        else array[i] = value;
      }
      return array;
    },
  };
}

/**
 * `fn name(index: u32) -> type`: array[index], or zero past its end (WGSL's arrayLength), for every listed
 * [name, array, type = 'f32'].
 */
export function boundedReads(...reads) {
  return reads.map(([name, array, type = 'f32']) =>
    `fn ${name}(index: u32) -> ${type} { if (index < arrayLength(&${array})) { return ${array}[index]; } return ${type === 'f32' ? '0.0' : `${type}(0)`}; }`)
    .join('\n');
}

/**
 * A pass's resources: `params` (its uniforms) at binding 0, then each [name, access, type = 'f32'] at the
 * next binding, an array of `type` with access 'read' or 'read_write'.
 * @param {[string, 'read'|'read_write', string?][]} buffers
 */
export function bindings(buffers) {
  return ['@group(0) @binding(0) var<uniform> params: Params;', ...buffers.map(([name, access, type = 'f32'], i) =>
    `@group(0) @binding(${i + 1}) var<storage, ${access}> ${name}: array<${type}>;`)].join('\n');
}

/**
 * The head of a pass of WORKGROUP_SIZE invocations a workgroup: its Params struct, the override
 * WORKGROUP_SIZE (`size` unless the pipeline sets it) and its bindings.
 * @param {{struct: string}} declared the pass's uniforms, from uniforms()
 * @param {number} size
 * @param {[string, 'read'|'read_write', string?][]} buffers as bindings()
 */
export function passHead(declared, size, buffers) {
  return `${declared.struct}

override WORKGROUP_SIZE: u32 = ${size}u;

${bindings(buffers)}`;
}

/**
 * The entry point of an elementwise pass: one invocation per flat `index`, the workgroups spread over x and
 * y (pass.spread) where one dimension's limit is too few.
 * @param {string} body WGSL statements, from a new line
 */
export const perElement = (body) => /* wgsl */ `
@compute @workgroup_size(WORKGROUP_SIZE, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let index = id.y * groups.x * WORKGROUP_SIZE + id.x;${body}
}`;

/**
 * The entry point of a pass with one workgroup per `row` (< params.rows), spread over x and y, and `local`
 * its invocation. The return past the last row is the whole workgroup's, so the barriers after it stay in
 * uniform control flow.
 * @param {string} body WGSL statements, from a new line
 */
export const perRow = (body) => /* wgsl */ `
@compute @workgroup_size(WORKGROUP_SIZE, 1, 1)
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
        @builtin(local_invocation_id) local: vec3<u32>) {
  let row = group.y * groups.x + group.x;
  if (row >= params.rows) { return; }${body}
}`;

// The workgroup's scratch for the reductions below: one f32 per invocation.
const REDUCTION_MEMORY = 'var<workgroup> sums: array<f32, WORKGROUP_SIZE>;';

/** `fn name(local, value) -> f32`: `combine` of `value` over the workgroup, a tree in `sums`, to every invocation. */
const reduction = (name, combine) => /* wgsl */ `
fn ${name}(local: u32, value: f32) -> f32 {
  sums[local] = value;
  workgroupBarrier();
  for (var stride = WORKGROUP_SIZE / 2u; stride > 0u; stride /= 2u) {
    if (local < stride) { sums[local] = ${combine('sums[local]', 'sums[local + stride]')}; }
    workgroupBarrier();
  }
  let total = sums[0];
  workgroupBarrier();
  return total;
}`;

/**
 * `rowSum(local, value)`: the sum of `value` over the workgroup's WORKGROUP_SIZE invocations, a tree in
 * workgroup memory (`sums`), returned to every invocation; the memory is free again when it returns.
 */
export const WORKGROUP_SUM = `
${REDUCTION_MEMORY}
${reduction('rowSum', (a, b) => `${a} + ${b}`)}`;

/** WORKGROUP_SUM and `rowMax(local, value)`, the maximum the same way, over the same memory. */
export const WORKGROUP_SUM_AND_MAX = `${WORKGROUP_SUM}
${reduction('rowMax', (a, b) => `max(${a}, ${b})`)}`;

/** The most negative finite f32, the start of a running maximum (WGSL may assume that floats are finite). */
export const LOWEST_F32 = 'const LOWEST_F32: f32 = bitcast<f32>(0xff7fffffu);';

/**
 * `layerNormStats(local, base) -> vec2<f32>`: the mean and rstd = 1/√(var + params.eps) of the params.d
 * values `read(base + i)` of one row, as torch.nn.LayerNorm (biased variance, computed in two passes as
 * Σ(x − mean)²/d, not E[x²] − E[x]²), over the workgroup; needs WORKGROUP_SUM and `read`.
 * @param {string} read the name of the row's bounds-checked read
 */
export const layerNormStats = (read) => /* wgsl */ `
fn layerNormStats(local: u32, base: u32) -> vec2<f32> {
  var partial = 0.0;
  for (var i = local; i < params.d; i += WORKGROUP_SIZE) { partial += ${read}(base + i); }
  let mean = rowSum(local, partial) / f32(params.d);
  partial = 0.0;
  for (var i = local; i < params.d; i += WORKGROUP_SIZE) { let c = ${read}(base + i) - mean; partial += c * c; }
  return vec2<f32>(mean, 1.0 / sqrt(rowSum(local, partial) / f32(params.d) + params.eps));
}`;

/** `lowbias32(x)`: Chris Wellons' integer hash, the counter-based dropout rule of docs/api.md. */
export const LOWBIAS32 = /* wgsl */ `
fn lowbias32(input: u32) -> u32 {
  var x = input;
  x ^= x >> 16u; x *= 0x7feb352du; x ^= x >> 15u; x *= 0x846ca68bu; x ^= x >> 16u;
  return x;
}`;
