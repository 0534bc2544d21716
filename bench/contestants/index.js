// The default line-up. Another backend joins by adding its contestants here (see bench/suite.js for
// the contestant shape) or, from a page, with registerContestant() before runSuite().
import { naiveContestants } from './naive.js';
import { onnxruntimeContestants } from './onnxruntime.js';
import { ourContestants } from './ours.js';
import { workerContestants } from './ours-workers.js';
import { tfjsContestants } from './tfjs.js';
import { webgpuContestants } from '../webgpu-contestants.js';

export function defaultContestants() {
  return [...ourContestants(), ...workerContestants(), ...naiveContestants(), ...onnxruntimeContestants(), ...tfjsContestants(), ...webgpuContestants()];
}
