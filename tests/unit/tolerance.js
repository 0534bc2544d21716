// |actual − expected| ≤ atol + rtol·|expected|, element by element, with a report that shows where a
// result went wrong: the first differing values and the largest difference.

/** Non-finite expected values (−∞ in a masked matrix) must be matched exactly. */
function differs(a, e, atol, rtol) {
  if (!Number.isFinite(e) || !Number.isFinite(a)) return !Object.is(a, e) && !(Number.isNaN(a) && Number.isNaN(e));
  return Math.abs(a - e) > atol + rtol * Math.abs(e);
}

/**
 * Compares two tensors. Returns { ok, maxAbsError, report }: report is '' when ok, else the shapes or
 * the first (up to 5) differing elements and the largest absolute difference.
 */
export function compareTensors(actual, expected, { atol, rtol }) {
  if (!actual || !ArrayBuffer.isView(actual.data)) {
    return { ok: false, maxAbsError: Infinity, report: `no tensor returned (got ${JSON.stringify(actual)?.slice(0, 80)})` };
  }
  if (JSON.stringify(actual.shape) !== JSON.stringify(expected.shape)) {
    return { ok: false, maxAbsError: Infinity, report: `shape [${actual.shape}] instead of [${expected.shape}]` };
  }
  if (actual.data.constructor !== expected.data.constructor) {
    return { ok: false, maxAbsError: Infinity, report: `${actual.data.constructor.name} instead of ${expected.data.constructor.name}` };
  }
  let maxAbsError = 0;
  let worstIndex = -1;
  const firstDifferences = [];
  for (let i = 0; i < expected.data.length; i++) {
    const a = actual.data[i];
    const e = expected.data[i];
    if (Number.isFinite(a) && Number.isFinite(e) && Math.abs(a - e) > maxAbsError) {
      maxAbsError = Math.abs(a - e);
      worstIndex = i;
    }
    if (differs(a, e, atol, rtol)) {
      if (!Number.isFinite(a) || !Number.isFinite(e)) maxAbsError = Infinity;
      if (firstDifferences.length < 5) firstDifferences.push(`[${i}] ${a} vs ${e} (|diff| ${Math.abs(a - e).toExponential(2)})`);
    }
  }
  if (firstDifferences.length === 0) return { ok: true, maxAbsError, report: '' };
  const worst = worstIndex >= 0 ? `; max |diff| ${maxAbsError.toExponential(3)} at [${worstIndex}]` : '';
  return {
    ok: false,
    maxAbsError,
    report: `values differ beyond atol=${atol}, rtol=${rtol}: ${firstDifferences.join(', ')}${worst}`,
  };
}

export function isTensor(value) {
  return value !== null && typeof value === 'object' && ArrayBuffer.isView(value.data) && Array.isArray(value.shape);
}
