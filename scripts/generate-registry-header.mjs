#!/usr/bin/env node
// Writes the C++ view of the op registry (web/src/core/registry.js) as a header, at build time (CMake runs
// it; the header lives under the build tree and is never committed):
//   AP_REGISTRY_FUNCTIONS(X)  X(jsName, cpp_name, parameters) for every API function, in registry order:
//                             the embind registration (cpp/bindings/bindings.cpp) expands it
//   AP_FIXTURE_FUNCTIONS(X)   X(jsName) for every function with fixtures: the native fixture runner's list
//   ap::registry::kOptionRanges  the numeric options' ranges and the words of their messages: the core's
//                             option checks (cpp/attention/check_helpers.cpp) read them
//   ap::registry::kAxes       every tensor argument's named axes (sequences, weights' shapes, tensor options),
//                             with the option whose presence selects a variant (xValue's weights.value), and
//                             whether a wrong rank is said as the named axes (a 'tensor' argument: matmul's b; every weight)
//   ap::registry::kDivisors   option | axis rules (heads | d_out)
//   ap::registry::kMemoryTerms  each function's memory estimate per path: coefficient · Π sizes
//   (cpp/attention/registry_rules.cpp applies the last three)
//   ap::registry::kArguments  every function's arguments in call order, with a weights object's keys
//   ap::registry::kOptions    every function's options in registry order, with their type and message words
//   (the binding, cpp/bindings/js_arguments.cpp, reads each call's JS arguments by these two)
// Usage: node scripts/generate-registry-header.mjs <output.h>
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { REGISTRY } from '../web/src/core/registry.js';

const output = process.argv[2];
if (!output) {
  console.error('usage: generate-registry-header.mjs <output.h>');
  process.exit(2);
}

const cString = (text) => JSON.stringify(text); // UTF-8 passes through; quotes and backslashes escaped
const number = (value) => (value === undefined ? '0' : Number.isInteger(value) ? `${value}.0` : String(value));
const bool = (value) => (value ? 'true' : 'false');

const functions = REGISTRY.map(({ name, cpp, args, options }) => `  X(${name}, ${cpp}, ${args.length + (options ? 1 : 0)})`);

const fixtures = REGISTRY.filter((entry) => entry.fixture).map(({ name }) => `  X(${name})`);

const ranges = [];
for (const { name: fn, options } of REGISTRY) {
  for (const [option, spec] of Object.entries(options ?? {})) {
    if (spec.type !== 'number' && spec.type !== 'integer') continue;
    ranges.push(`  {${cString(fn)}, ${cString(option)}, ${bool(spec.type === 'integer')}, ` +
      `${bool(spec.min !== undefined)}, ${number(spec.min)}, ${bool(spec.minExclusive)}, ` +
      `${bool(spec.max !== undefined)}, ${number(spec.max)}, ${bool(spec.maxExclusive)}, ${cString(spec.expected)}},`);
  }
}

// Tensor arguments' named axes, in check order: {function, argument, when, rank, axes, note, named_rank}.
const MAX_RANK = 4;
const axesRows = [];
const axesRow = (fn, argument, when, axes, note = '', namedRank = false) => {
  if (axes.length > MAX_RANK) throw new Error(`registry: ${fn} ${argument} has more than ${MAX_RANK} axes`);
  const padded = [...axes, ...Array(MAX_RANK - axes.length).fill('')].map(cString).join(', ');
  axesRows.push(`  {${cString(fn)}, ${cString(argument)}, ${cString(when)}, ${axes.length}, {${padded}}, ${cString(note)}, ${bool(namedRank)}},`);
};
const divisorRows = [];
// Each argument {function, name, kind, keys, head_keys}: a weights object's keys and every head's (weights.heads[]).
const MAX_KEYS = 8;
const keyList = (keys) => {
  if (keys.length > MAX_KEYS) throw new Error(`registry: more than ${MAX_KEYS} weights keys: ${keys}`);
  return `{${[...keys, ...Array(MAX_KEYS - keys.length).fill('')].map(cString).join(', ')}}`;
};
const argumentRows = REGISTRY.flatMap(({ name: fn, args }) => args.map((arg) => {
  const headKeys = Object.keys(arg.shapes ?? {}).filter((key) => key.startsWith('heads[].')).map((key) => key.slice('heads[].'.length));
  return `  {${cString(fn)}, ${cString(arg.name)}, ${cString(arg.kind)}, ${keyList(arg.keys ?? [])}, ${keyList(headKeys)}},`;
}));
const optionRows = REGISTRY.flatMap(({ name: fn, options }) => Object.entries(options ?? {}).map(([option, spec]) =>
  `  {${cString(fn)}, ${cString(option)}, ${cString(spec.type)}, ${cString(spec.expected ?? '')}},`));
const MAX_TERM_SIZES = 5;
const memoryRows = [];
for (const { name: fn, args, options, memory } of REGISTRY) {
  for (const arg of args) {
    if (arg.axes) axesRow(fn, arg.name, '', arg.axes, arg.note ?? '', arg.kind === 'tensor');
    // A weight's wrong rank is said as its named axes, as the JS check says it.
    for (const [key, axes] of Object.entries(arg.shapes ?? {})) axesRow(fn, `${arg.name}.${key}`, '', axes, '', true);
  }
  for (const [option, spec] of Object.entries(options ?? {})) {
    if (spec.axes) axesRow(fn, `options.${option}`, '', spec.axes, spec.note ?? '');
    for (const [key, axes] of Object.entries(spec.weights ?? {})) axesRow(fn, `weights.${key}`, `options.${option}`, axes, '', true);
    if (spec.divides) divisorRows.push(`  {${cString(fn)}, ${cString(option)}, ${cString(spec.divides)}},`);
  }
  for (const [path, terms] of Object.entries(memory ?? {})) {
    for (const [coefficient, ...sizes] of terms) {
      if (sizes.length > MAX_TERM_SIZES) throw new Error(`registry: ${fn}'s memory term has more than ${MAX_TERM_SIZES} sizes`);
      const padded = [...sizes, ...Array(MAX_TERM_SIZES - sizes.length).fill('')].map(cString).join(', ');
      memoryRows.push(`  {${cString(fn)}, ${cString(path)}, ${number(coefficient)}, ${sizes.length}, {${padded}}},`);
    }
  }
}

// One table of the header: its comment, its row struct's members (C++ declarations) and its rows.
const table = (comment, struct, name, rows, members) => `${comment}
struct ${struct} {
${members.map((member) => `  ${member};`).join('\n')}
};

inline constexpr ${struct} ${name}[] = {
${rows.join('\n')}
};`;

const header = `// Generated by scripts/generate-registry-header.mjs from web/src/core/registry.js: do not edit.
#pragma once

#include <cstddef>

// X(jsName, cpp_name, parameters): every API function, in registry order.
#define AP_REGISTRY_FUNCTIONS(X) \\
${functions.join(' \\\n')}

// X(jsName): the functions with PyTorch fixtures (tests/fixtures/<jsName>.json), in registry order.
#define AP_FIXTURE_FUNCTIONS(X) \\
${fixtures.join(' \\\n')}

namespace ap::registry {

${table(`// A numeric option's range (registry.js spec): min/max where has_min/has_max, exclusive or not, and the
// words a message uses for it ("a number in [0, 1)").`, 'OptionRange', 'kOptionRanges', ranges, [
  'const char* function', 'const char* option', 'bool integer', 'bool has_min', 'double min', 'bool min_exclusive',
  'bool has_max', 'double max', 'bool max_exclusive', 'const char* expected'])}

inline constexpr std::size_t kOptionRangeCount = sizeof(kOptionRanges) / sizeof(kOptionRanges[0]);

inline constexpr int kMaxRank = ${MAX_RANK};

${table(`// A tensor argument's named axes (registry.js args' axes, weights' shapes, a tensor option's axes). \`when\`
// names the option whose presence selects this row over the plain one ("" for the plain one); \`note\` is said
// after a shape message's expectation ("the batch size and Tk of xContext"); \`named_rank\`: a wrong rank is
// said as the named axes with the sizes known ("[K=3, N]": a 'tensor' argument or a weight, as the JS check says it).`,
  'ArgumentAxes', 'kAxes', axesRows, [
    'const char* function', 'const char* argument', 'const char* when', 'int rank', `const char* axes[${MAX_RANK}]`,
    'const char* note', 'bool named_rank'])}

${table('// options.<option> must divide the size named \`axis\` (heads | d_out).', 'Divisor', 'kDivisors', divisorRows,
  ['const char* function', 'const char* option', 'const char* axis'])}

${table('// One term of a function\'s memory estimate on a path: coefficient · Π sizes[0..count) floats.', 'MemoryTerm',
  'kMemoryTerms', memoryRows,
  ['const char* function', 'const char* path', 'double coefficient', 'int count', `const char* sizes[${MAX_TERM_SIZES}]`])}

inline constexpr int kMaxKeys = ${MAX_KEYS};

${table(`// A function's argument, in call order: its name, its kind ('sequence', 'tokens', 'tensor', 'weights') and a
// weights object's keys ("" after the last; those ending in Bias, and outWeight, are optional) and, where it has
// heads (weights.heads[]), every head's keys.`, 'Argument', 'kArguments', argumentRows,
  ['const char* function', 'const char* name', 'const char* kind', 'const char* keys[kMaxKeys]', 'const char* head_keys[kMaxKeys]'])}

${table(`// A function's option, in registry order: its type ('boolean', 'choice', 'number', 'integer', 'mask', 'tensor')
// and the words a message uses for it ("" where the type says them: "true or false", the choices).`, 'Option', 'kOptions',
  optionRows, ['const char* function', 'const char* name', 'const char* type', 'const char* expected'])}

}  // namespace ap::registry
`;

// Written only when it changes: every C++ file includes it, so an edit of registry.js that leaves the table as
// it was (a reason's words, a default the C++ core does not read) rebuilds nothing.
mkdirSync(dirname(output), { recursive: true });
if (!existsSync(output) || readFileSync(output, 'utf8') !== header) writeFileSync(output, header);
