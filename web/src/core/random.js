// The seeded random numbers live in web/src/base/random.js, below both the core and the GPU code that share
// them; the core's modules (and the page's, the trainer's) keep reading them here.
export { lowbias32, mulberry32 } from '../base/random.js';
