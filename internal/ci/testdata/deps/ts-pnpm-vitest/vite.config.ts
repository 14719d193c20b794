// vite bundles this file into node_modules/.vite-temp before vitest can read it.
import { defineConfig } from 'vitest/config';

const answer: string = 'from vite.config.ts';

export default defineConfig({
  test: { env: { DIXIT_CONFIG: answer } },
});
