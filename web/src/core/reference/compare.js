// Step 9: check our work. How far is a result from a trusted one, and is it close enough?
import { checkCompare } from './checks.js';
import { checkedOnce } from '../api-checked.js';

/**
 * compare(actual, expected, {atol, rtol}) → { maxAbsError, maxRelError, allclose, firstMismatch }.
 * An element is close when |a − e| ≤ atol + rtol·|e| (numpy's and torch's allclose); firstMismatch is
 * the flat index of the first element that is not, or −1. maxRelError is max |a − e| / |e| over the
 * elements whose expected value is not 0 (where the relative error is defined).
 */
export function compare(actual, expected, options) {
  checkedOnce('compare', () => checkCompare(actual, expected, options));
  let maxAbsError = 0;
  let maxRelError = 0;
  let firstMismatch = -1;
  for (let i = 0; i < actual.data.length; i++) {
    const a = actual.data[i];
    const e = expected.data[i];
    const absError = Math.abs(a - e);
    maxAbsError = Math.max(maxAbsError, absError);
    if (e !== 0) maxRelError = Math.max(maxRelError, absError / Math.abs(e));
    if (firstMismatch < 0 && absError > options.atol + options.rtol * Math.abs(e)) firstMismatch = i;
  }
  return { maxAbsError, maxRelError, allclose: firstMismatch < 0, firstMismatch };
}
