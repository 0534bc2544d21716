// Playwright drives Debian's Chromium (never a downloaded browser). The server serves the repository
// root, so tests reach the built page under /dist/ and their own pages under /tests/e2e/pages/.
import { execFileSync } from 'node:child_process';
import { defineConfig } from '@playwright/test';

// A free port per run, chosen once by the runner and inherited by its workers through the environment,
// so two runs side by side (two clones, or a run beside `npm start`) never test each other's server.
const FREE_PORT = "const s = require('net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); })";
process.env.AP_TEST_PORT ??= execFileSync(process.execPath, ['-e', FREE_PORT]).toString().trim();
const PORT = Number(process.env.AP_TEST_PORT);

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--enable-unsafe-webgpu',
];

export default defineConfig({
  testDir: 'tests/e2e',
  outputDir: 'test-results/e2e',
  timeout: 60_000,
  // Two workers, one spec file each at a time (its tests in order): Playwright runs last and alone in
  // scripts/test.sh, and its tests wait on the browser as much as they compute, so the 2-core machine took
  // 264 s instead of 393 s for the same 148 tests (fresh clone, 2026-11-24). The slowest, the axe passes
  // (40 s beside another worker), carry their own longer timeouts.
  fullyParallel: false,
  workers: 2,
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${PORT}/`,
    browserName: 'chromium',
    launchOptions: { executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS },
  },
  webServer: {
    command: `node scripts/serve.mjs --root . --port ${PORT}`,
    url: `http://127.0.0.1:${PORT}/package.json`,
    reuseExistingServer: false,
  },
});
