// Playwright drives Debian's Chromium (never a downloaded browser). The server serves the repository
// root, so tests reach the built page under /dist/ and their own pages under /tests/e2e/pages/.
import { defineConfig } from '@playwright/test';

const PORT = 4173;

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
  fullyParallel: false,
  workers: 1,
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${PORT}/`,
    browserName: 'chromium',
    launchOptions: { executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS },
  },
  webServer: {
    command: `node scripts/serve.mjs --root . --port ${PORT}`,
    url: `http://127.0.0.1:${PORT}/package.json`,
    reuseExistingServer: !process.env.CI,
  },
});
