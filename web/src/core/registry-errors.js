// Errors are data: every bad input is an ApiError carrying {fn, argument, value, expected, kind}, and its
// message is formatted from those fields here, at the edge, in one place. Code that needs to know what went
// wrong reads the fields, never the message.

/** "[2, 4, 3]"; any entry that is not a number is shown as JS writes it (2n for a BigInt, NaN, 'a'). */
export function formatShape(shape) {
  return `[${shape.map(formatShapeEntry).join(', ')}]`;
}

function formatShapeEntry(size) {
  if (typeof size === 'bigint') return `${size}n`;
  if (typeof size === 'string') return `'${size}'`;
  if (size === null || size === undefined || typeof size === 'number' || typeof size === 'boolean') return String(size);
  return describeValue(size);
}

const article = (name) => (/^[AEIOU]/.test(name) ? 'an' : 'a');

/** A short, safe description of any value for an error message ("'abc'", "an Array(3)", "an Int32Array(4)"). */
export function describeValue(value) {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') return `'${value.length > 40 ? `${value.slice(0, 40)}…` : value}'`;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'symbol') return 'a symbol';
  if (Array.isArray(value)) return `an Array(${value.length})`;
  if (ArrayBuffer.isView(value)) return `${article(value.constructor.name)} ${value.constructor.name}(${value.length})`;
  if (typeof value === 'function') return 'a function';
  return `an object with keys [${Object.keys(value).slice(0, 8).map((key) => `"${key}"`).join(',')}]`;
}

/** The article and the name of a typed-array type: "a Float32Array", "an Int32Array". */
export const withArticle = (name) => `${article(name)} ${name}`;

/**
 * How each kind of error reads. `argument` is the caller's path ("x", "weights.query", "options.dropout").
 * option: a value out of range or of the wrong type; type: an argument that is not what it should be;
 * shape / length / value / entries: a tensor's shape, data length or an element, a shape's entries; unknown: a key nobody declared;
 * divisible, memory, arity: the sizes of a call taken together; overflow: a result that left float32's range
 * (registry-results.js), with the stage, the expression, the value it reached and whether an option drove it.
 */
const FORMATS = {
  option: ({ argument, value, expected }) => `${argument}=${describeValue(value)}; expected ${expected}`,
  type: ({ argument, value, expected }) => `${argument} is ${describeValue(value)}; expected ${expected}`,
  entries: ({ argument, value, expected }) => `${argument} is ${formatShape(value)}; expected ${expected}`,
  value: ({ argument, value, expected }) => `${argument} is ${String(value)}; expected ${expected}`,
  shape: ({ argument, value, expected }) => `${argument} has shape ${formatShape(value)}; expected ${expected}`,
  length: ({ argument, value, expected }) => `${argument} has ${value} values; expected ${expected}`,
  unknown: ({ argument, value, expected }) =>
    `${argument === 'options' ? `unknown option '${value}'` : `${argument} has an unknown key '${value}'`}; expected one of ${expected}`,
  divisible: ({ value, dividend }) => `${dividend} is not divisible by heads=${value}`,
  memory: ({ argument, value, limit, inputs }) => (limit === undefined
    ? `${argument} needs ${formatBytes(value)} for its results and workspace; the memory limit is 2 GiB`
    : `${argument} needs ${formatBytes(value)} for its results and workspace${inputs ? ` and ${formatBytes(inputs)} for the copies of its inputs` : ''}; the memory limit is ${formatLimit(limit)}`),
  arity: ({ value, expected }) => `takes ${expected}; got ${value}`,
  overflow: ({ stage, plural, argument, value, option, expression, reached }) =>
    `the ${stage} ${plural ? 'overflow' : 'overflows'} float32 (${option ? `${argument}=${describeValue(value)}` : `|${argument}| up to ${value.toExponential(2).replace(/\.?0+e/, 'e')}`} makes ${expression} reach ${reached})`,
};

/** 57.6 GB: decimal units, one decimal, as the C++ core's format_bytes writes estimates. */
export function formatBytes(bytes) {
  const units = ['bytes', 'kB', 'MB', 'GB', 'TB', 'PB'];
  let unit = 0;
  while (bytes >= 1000 && unit < units.length - 1) {
    bytes /= 1000;
    unit++;
  }
  return unit === 0 ? `${bytes.toFixed(0)} bytes` : `${bytes.toFixed(1)} ${units[unit]}`;
}

/** 2 GiB, 64 MiB, 1975 MiB: binary units, as the C++ core's format_limit writes limits (whole units only). */
export function formatLimit(bytes) {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let unit = 0;
  while (unit < units.length - 1 && bytes >= 1024 && bytes % 1024 === 0) {
    bytes /= 1024;
    unit++;
  }
  return `${bytes} ${units[unit]}`;
}

/** Formats the message of a structured error: "<fn>: <what is wrong>; expected <what should be>". */
export function formatError(fields) {
  return `${fields.fn}: ${FORMATS[fields.kind](fields)}`;
}

/** A bad input: an Error whose fields say what was wrong; its message is formatted from them. */
export class ApiError extends Error {
  /** @param {{fn: string, argument: string, value: any, expected: string, kind: string}} fields */
  constructor(fields) {
    super(formatError(fields));
    Object.assign(this, fields);
  }
}

/** Throws the ApiError of these fields. */
export function fail(fn, kind, argument, value, expected, extra = {}) {
  throw new ApiError({ fn, argument, value, expected, kind, ...extra });
}
