#!/usr/bin/env node
// Where a control change's repaint goes: a Chromium trace (devtools.timeline) of key presses on a step's slider,
// the renderer main thread's time per event name (self time, nested events subtracted), per key press.
//   node scripts/profile-repaint.mjs [--dist DIR] [--presses N] [--slider NAME] [--timeline N [--depth D]] [--cpu 1] [--all 1]
//                                   [--still MS] 'step=self-attention&T=32&dModel=64' ...
// Per case: input → painted and rAF → painted medians, the main thread's CPU (thread) time per repaint (steadier
// than wall time on a loaded machine: compare two builds with --dist), and its self time per trace event name
// inside the input → painted windows (--all 1: the whole trace). --timeline N prints the first N windows' tasks
// (nested D deep); --cpu 1 takes a V8 CPU profile instead (self time per JS function: build the page unminified
// for names, e.g. `npx vite build --minify false --outDir ../build/prof-dist`). --still MS leaves the slider still for
// MS (600, say) after each repaint and reports what ran then, from 100 ms after the painted frame to the next key
// press: the work the page leaves for when the controls stop (the PyTorch panel, the address bar).
// Not a test: it prints a breakdown for finding what to fix.
import { chromium } from '@playwright/test';
import { startServer } from './serve.mjs';
import { CHROMIUM_ARGS } from '../playwright.config.js';

const args = process.argv.slice(2);
const option = (name, fallback) => { const i = args.indexOf(name); if (i < 0) return fallback; const v = args[i + 1]; args.splice(i, 2); return v; };
const dist = option('--dist', 'dist').replace(/\/+$/, '');
const presses = Number(option('--presses', '20'));
const slider = option('--slider', '');
const cpu = option('--cpu', null) !== null;
const timeline = Number(option('--timeline', '0'));
const depthLimit = Number(option('--depth', '2'));
const still = Number(option('--still', '0'));
const cases = args.length ? args : ['step=self-attention&T=32&dModel=64'];

const CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink', 'cc', 'gpu', 'v8.execute', 'toplevel', 'blink.user_timing'].join(',');

function selfTimes(events, windows = null) {
  // Main thread of the renderer: the thread with the most 'UpdateLayoutTree'/'Layout'/'FunctionCall' events.
  const byThread = new Map();
  for (const e of events) {
    if (e.ph !== 'X' || !['FunctionCall', 'UpdateLayoutTree', 'Layout', 'Paint', 'EventDispatch'].includes(e.name)) continue;
    const key = `${e.pid}:${e.tid}`;
    byThread.set(key, (byThread.get(key) ?? 0) + 1);
  }
  const [main] = [...byThread.entries()].sort((a, b) => b[1] - a[1])[0];
  const inside = (e) => !windows || windows.some(([a, b]) => e.ts >= a && e.ts < b);
  const complete = events.filter((e) => `${e.pid}:${e.tid}` === main && e.ph === 'X' && e.dur !== undefined && inside(e)).sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const totals = new Map();
  const stack = [];
  for (const e of complete) {
    while (stack.length && stack.at(-1).ts + stack.at(-1).dur <= e.ts) stack.pop();
    const parent = stack.at(-1);
    if (parent) totals.set(parent.name, (totals.get(parent.name) ?? 0) - e.dur);
    totals.set(e.name, (totals.get(e.name) ?? 0) + e.dur);
    stack.push(e);
  }
  return totals;
}

const server = await startServer({ root: '.', port: 0, isolated: false });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
try {
  for (const query of cases) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${server.url}${dist}/index.html?${query}`);
    await page.waitForFunction(() => window.attentionPlayground?.lastRun()?.result);
    const weights = page.locator('figure[data-tensor="weights"] canvas').first();
    if (await weights.count()) await weights.focus();
    await page.evaluate((name) => {
      window.__done = 0;
      document.addEventListener('input', () => performance.mark('prof:input'), true);
      window.attentionPlayground.onFrame(() => { performance.mark('prof:frame'); const c = new MessageChannel(); c.port1.onmessage = () => { performance.mark('prof:painted'); window.__done++; }; c.port2.postMessage(null); });
      (document.querySelector(`.controls input[type="range"][data-control="${name}"]`)
        ?? document.querySelector('.controls input[type="range"][data-control="temperature"]')
        ?? document.querySelector('.controls input[type="range"][data-control="T"]')).focus();
    }, slider);
    for (let i = 0; i < 4; i++) { await page.keyboard.press(i % 2 ? 'ArrowRight' : 'ArrowLeft'); await page.waitForFunction((n) => window.__done >= n, i + 1); }
    const cdp = await page.context().newCDPSession(page);
    if (cpu) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
      await cdp.send('Profiler.start');
      await page.evaluate(() => { window.__windows = []; document.addEventListener('input', () => { window.__windows.push([performance.timeOrigin * 1000 + performance.now() * 1000]); }, true); window.attentionPlayground.onFrame(() => { const c = new MessageChannel(); c.port1.onmessage = () => { window.__windows.at(-1).push(performance.timeOrigin * 1000 + performance.now() * 1000); }; c.port2.postMessage(null); }); });
      for (let i = 0; i < presses; i++) {
        await page.waitForTimeout(40 + Math.random() * 20);
        await page.keyboard.press(i % 2 ? 'ArrowRight' : 'ArrowLeft');
        await page.waitForFunction((n) => window.__done >= n, 4 + i + 1);
      }
      const { profile } = await cdp.send('Profiler.stop');
      const byId = new Map(profile.nodes.map((n) => [n.id, n]));
      const self = new Map();
      for (const id of profile.samples) {
        const { callFrame: f } = byId.get(id);
        const key = `${f.functionName || '(anon)'} ${f.url.split('/').pop()}:${f.lineNumber + 1}`;
        self.set(key, (self.get(key) ?? 0) + 1);
      }
      const n = profile.samples.length;
      const total = (profile.endTime - profile.startTime) / 1000;
      console.log(`${query} CPU profile: ${presses} presses, ${total.toFixed(0)} ms, ${n} samples; self time per press (ms):`);
      for (const [key, count] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`  ${key.padEnd(60)} ${((count / n) * total / presses).toFixed(2).padStart(7)}`);
      await page.close();
      continue;
    }
    const events = [];
    cdp.on('Tracing.dataCollected', ({ value }) => events.push(...value));
    const finished = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
    await cdp.send('Tracing.start', { categories: CATEGORIES, transferMode: 'ReportEvents' });
    await page.waitForTimeout(200);
    for (let i = 0; i < presses; i++) {
      await page.waitForTimeout(still || 40 + Math.random() * 20);
      await page.keyboard.press(i % 2 ? 'ArrowRight' : 'ArrowLeft');
      await page.waitForFunction((n) => window.__done >= n, 4 + i + 1);
    }
    await page.waitForTimeout(Math.max(300, still));
    await cdp.send('Tracing.end');
    await finished;
    const marks = (name) => events.filter((e) => e.name === name && e.cat.includes('user_timing')).map((e) => e.ts).sort((a, b) => a - b);
    const inputs = marks('prof:input');
    const painted = marks('prof:painted');
    const frames = marks('prof:frame');
    const windows = inputs.map((a) => [a, painted.find((b) => b > a)]).filter(([, b]) => b);
    const spans = windows.map(([a, b]) => ({ total: (b - a) / 1000, frame: (b - frames.find((f) => f > a)) / 1000 }));
    const med = (v) => { const s = [...v].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };
    console.log(`  windows ${windows.length}: input → painted median ${med(spans.map((s) => s.total)).toFixed(2)} ms, rAF → painted median ${med(spans.map((s) => s.frame)).toFixed(2)} ms`);
    // The main thread's CPU time (thread time, less sensitive to a loaded machine than wall time) per window.
    {
      const counts = new Map();
      for (const e of events) if (e.name === 'UpdateLayoutTree' || e.name === 'Layout') counts.set(`${e.pid}:${e.tid}`, (counts.get(`${e.pid}:${e.tid}`) ?? 0) + 1);
      const mainKey = [...counts.entries()].sort((x, y) => y[1] - x[1])[0][0];
      const tops = events.filter((e) => `${e.pid}:${e.tid}` === mainKey && e.ph === 'X' && e.tdur !== undefined && (e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask')).sort((x, y) => x.ts - y.ts);
      const outer = [];
      for (const e of tops) if (!outer.length || e.ts >= outer.at(-1).ts + outer.at(-1).dur) outer.push(e);
      const cpu = windows.map(([a, b]) => outer.filter((e) => e.ts >= a - 3000 && e.ts < b).reduce((sum, e) => sum + e.tdur, 0) / 1000);
      console.log(`  main-thread CPU per repaint (input task → painted): median ${med(cpu).toFixed(2)} ms, mean ${(cpu.reduce((x, y) => x + y, 0) / cpu.length).toFixed(2)}`);
      if (still) {
        const after = windows.map(([, b], i) => {
          const tasks = outer.filter((e) => e.ts > b + 100000 && e.ts < (inputs[i + 1] ?? b + still * 1000));
          return { cpu: tasks.reduce((sum, e) => sum + e.tdur, 0) / 1000, longest: Math.max(0, ...tasks.map((e) => e.dur / 1000)) };
        });
        console.log(`  with the slider still (painted + 100 ms → next press): main-thread CPU median ${med(after.map((a) => a.cpu)).toFixed(2)} ms, longest task median ${med(after.map((a) => a.longest)).toFixed(2)} ms`);
      }
    }
    const totals = selfTimes(events, option('--all', null) ? null : windows);
    if (timeline) {
      // The top-level tasks on the main thread inside the first few windows, in order: what runs between a
      // key press and its painted frame.
      const mainKey = (() => { const c = new Map(); for (const e of events) if (e.name === 'UpdateLayoutTree' || e.name === 'Layout') c.set(`${e.pid}:${e.tid}`, (c.get(`${e.pid}:${e.tid}`) ?? 0) + 1); return [...c.entries()].sort((a, b) => b[1] - a[1])[0][0]; })();
      const onMain = events.filter((e) => `${e.pid}:${e.tid}` === mainKey && e.ph === 'X' && e.dur !== undefined).sort((a, b) => a.ts - b.ts || b.dur - a.dur);
      for (const [a, b] of windows.slice(0, timeline)) {
        console.log(`  -- window ${((b - a) / 1000).toFixed(1)} ms`);
        const inWindow = onMain.filter((e) => e.ts >= a - 2000 && e.ts < b);
        const depthOf = [];
        for (const e of inWindow) {
          while (depthOf.length && depthOf.at(-1).ts + depthOf.at(-1).dur <= e.ts) depthOf.pop();
          if (['Layout', 'UpdateLayoutTree', 'LocalFrameView::performLayout', 'ScheduleStyleRecalculation', 'InvalidateLayout'].includes(e.name) && e.dur >= 300) console.log(`      ${e.name} ${((e.ts - a) / 1000).toFixed(1)} +${(e.dur / 1000).toFixed(2)} ${JSON.stringify(e.args).slice(0, 400)}`);
          if (depthOf.length <= depthLimit && e.dur >= 250) console.log(`  ${' '.repeat(depthOf.length * 2)}${((e.ts - a) / 1000).toFixed(1).padStart(6)} +${(e.dur / 1000).toFixed(2)} ${e.name}`);
          depthOf.push(e);
        }
      }
    }
    const state = await page.evaluate(() => window.attentionPlayground.getState());
    const all = [...totals.values()].reduce((a, b) => a + b, 0);
    console.log(`${query}  (T now ${state.T}; ${presses} presses; main-thread self time per press, ms; total ${(all / 1000 / presses).toFixed(2)})`);
    for (const [name, us] of [...totals.entries()].sort((a, b) => b[1] - a[1]).slice(0, 22)) {
      console.log(`  ${name.padEnd(36)} ${(us / 1000 / presses).toFixed(2).padStart(7)}`);
    }
    await page.close();
  }
} finally {
  await browser.close();
  await server.close();
}
