// The project's seeded random numbers, in one place so that "seeded" means one thing everywhere.
//   lowbias32: the counter-based hash behind dropout's masks (docs/api.md) and the page's embeddings;
//              the C++ core and the WGSL dropout kernel implement the same function.
//   mulberry32: a small sequential generator for test and benchmark inputs.

/** Chris Wellons' lowbias32 hash on uint32 (Math.imul multiplies mod 2³²; >>> 0 reads it unsigned). */
export function lowbias32(value) {
  let x = value >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  x ^= x >>> 16;
  return x >>> 0;
}

/** mulberry32: a function returning the next uniform number in [0, 1) of the stream for `seed`. */
export function mulberry32(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
