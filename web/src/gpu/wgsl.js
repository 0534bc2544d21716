// What the WGSL passes share, written once and included: each pass's uniforms declared as [{name, type}], from
// which both its WGSL `Params` struct and the packing of its uniform buffer are generated (onnxruntime-web's
// registerUniforms), the bounds-checked reads, and the workgroup tree sum.

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
 * `rowSum(local, value)`: the sum of `value` over the workgroup's WORKGROUP_SIZE invocations, a tree in
 * workgroup memory (`sums`), returned to every invocation; the memory is free again when it returns.
 */
export const WORKGROUP_SUM = /* wgsl */ `
var<workgroup> sums: array<f32, WORKGROUP_SIZE>;

fn rowSum(local: u32, value: f32) -> f32 {
  sums[local] = value;
  workgroupBarrier();
  for (var stride = WORKGROUP_SIZE / 2u; stride > 0u; stride /= 2u) {
    if (local < stride) { sums[local] += sums[local + stride]; }
    workgroupBarrier();
  }
  let total = sums[0];
  workgroupBarrier();
  return total;
}`;
