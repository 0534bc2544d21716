// The soak runs, too long for `npm test`: npx vitest run --config tests/long/vitest.config.js
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { include: ['tests/long/**/*.test.js'], environment: 'node', testTimeout: 600_000 },
});
