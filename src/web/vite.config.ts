/// <reference types="node" />
// The only file under src/web that runs in Node (Vite loads it), hence the node types reference above.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/** Builds the single-page UI into dist/web, which the server serves (index.html for client routes). */
export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../../dist/web', import.meta.url)),
    emptyOutDir: true,
    sourcemap: true,
  },
});
