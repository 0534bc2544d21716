// Plain JavaScript written the obvious way (bench/naive.js): what a page gets without any library.
import { attentionNaive, gemmNaive } from '../naive.js';

export function naiveContestants() {
  return [{
    name: 'naive JS',
    group: 'baseline',
    setup: async () => 'triple loops on Float32Array',
    tasks: {
      // ≈0.8 GFLOP/s: n=1024 would take ~3 s a run, T=1024 ~10 s; the trend is clear below that.
      gemm: { supports: (n) => n <= 512 || 'over 2 s a run; skipped to keep the suite under 10 minutes', prepare: async ({ a, b, n }) => ({ run: () => gemmNaive(a, b, n) }) },
      attention: { supports: (T) => T <= 512 || 'over 5 s a run; skipped to keep the suite under 10 minutes', prepare: async (inputs) => ({ run: () => attentionNaive(inputs) }) },
    },
  }];
}
