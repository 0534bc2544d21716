// Peak memory of the benchmark page for bench/run.mjs: the resident set of Chromium's renderer processes
// started under this Node process (Linux /proc). reset() clears each one's peak (VmHWM, by writing 5 to
// /proc/<pid>/clear_refs) and notes its resident set; read() gives the largest renderer's peak since then
// (everything the page holds: JS heap, typed arrays, every WASM memory, tfjs's included) and its resident
// set at the reset; cpuMs() the CPU time (user + system, all threads) the largest renderer has used so far,
// in ms, for CPU ms per step beside the wall time on a shared machine. Returns null where /proc is not there.
import { readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';

function status(pid) {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key) => Number(text.match(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm'))?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

function renderers(rootPid) {
  const parent = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch { /* the process ended */ }
  }
  const descends = (pid) => { for (let p = pid, hops = 0; p > 1 && hops < 64; p = parent.get(p), hops++) if (p === rootPid) return true; return false; };
  const found = [];
  for (const pid of parent.keys()) {
    if (pid === rootPid || !descends(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer')) found.push(pid);
    } catch { /* the process ended */ }
  }
  return found;
}

const TICK_MS = 10; // USER_HZ = 100 on Linux: /proc/<pid>/stat counts CPU time in 1/100 s

function cpuMsOf(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS; // utime, stime (fields 14 and 15 of stat)
}

export function rendererMemory(rootPid) {
  if (!existsSync('/proc/self/clear_refs')) return null;
  let start = new Map();
  return {
    reset() {
      start = new Map();
      for (const pid of renderers(rootPid)) {
        try {
          writeFileSync(`/proc/${pid}/clear_refs`, '5');
          start.set(pid, status(pid).rss);
        } catch { /* the process ended */ }
      }
      return true;
    },
    cpuMs() {
      let best = null;
      for (const pid of renderers(rootPid)) {
        try {
          const rss = status(pid).rss;
          if (!best || rss > best.rss) best = { pid, rss };
        } catch { /* the process ended */ }
      }
      return best ? cpuMsOf(best.pid) : null;
    },
    read() {
      let best = null;
      for (const pid of renderers(rootPid)) {
        try {
          const s = status(pid);
          if (!best || s.rss > best.rss) best = { pid, ...s };
        } catch { /* the process ended */ }
      }
      if (!best) return { memoryKind: 'no renderer process found' };
      return { peakBytes: best.hwm, startBytes: start.get(best.pid) ?? null, memoryKind: 'renderer process peak RSS (VmHWM, reset before the run)' };
    },
  };
}
