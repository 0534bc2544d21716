// The C++ panel shows the real teaching code: regions of cpp/attention/*.cpp marked
//   // region: causal-average-loop
//   …
//   // endregion
// (comment lines only, so the C++ is untouched). vite.config.js reads the files at build time and
// hands each step its regions (`virtual:cpp-regions`), as it hands it its typeset formula; the page
// never fetches source. No fs here: the callers pass the files' text, so Vitest checks the same code.

const START = /^\s*\/\/ region: ([a-z0-9-]+)\s*$/;
const END = /^\s*\/\/ endregion\s*$/;

/**
 * Every region of the given files.
 * @param {Record<string, string>} sources file path → text
 * @returns {Map<string, {path: string, first: number, last: number, text: string}>} region name →
 *   where it is (1-based line numbers of its first and last code line) and its code, marker lines of
 *   nested regions dropped and the common indentation removed
 */
export function extractRegions(sources) {
  const regions = new Map();
  for (const [path, source] of Object.entries(sources)) {
    const lines = source.split('\n');
    const open = []; // {name, start}
    lines.forEach((line, index) => {
      const start = START.exec(line);
      if (start) {
        if (regions.has(start[1]) || open.some((r) => r.name === start[1])) {
          throw new Error(`extractRegions: region "${start[1]}" is marked twice (again in ${path}:${index + 1}); names must be unique`);
        }
        open.push({ name: start[1], start: index + 1 });
      } else if (END.test(line)) {
        const region = open.pop();
        if (!region) throw new Error(`extractRegions: ${path}:${index + 1} ends a region that was never opened`);
        const body = lines.slice(region.start, index).filter((l) => !START.test(l) && !END.test(l));
        const indent = Math.min(...body.filter((l) => l.trim()).map((l) => /^ */.exec(l)[0].length));
        regions.set(region.name, {
          path, first: region.start + 1, last: index, text: body.map((l) => l.slice(indent)).join('\n'),
        });
      }
    });
    if (open.length) throw new Error(`extractRegions: region "${open[0].name}" in ${path}:${open[0].start} is never closed (// endregion)`);
  }
  return regions;
}

/** A step's C++ panel: each named region under a comment saying where it comes from. */
export function cppPanel(names, regions) {
  return names.map((name) => {
    const region = regions.get(name);
    if (!region) throw new Error(`cppPanel: no region "${name}" in the C++ sources; expected one of ${[...regions.keys()].join(', ')}`);
    return `// ${region.path}, lines ${region.first}–${region.last}\n${region.text}`;
  }).join('\n\n');
}
