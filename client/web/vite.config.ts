import { defineConfig } from "vitest/config";

// The server serves dist/index.html at / (and at the deep links /room/ID, /join/CODE,
// /replay/ID, /rules) and the built files under /assets.
export default defineConfig({
  base: "/",
  build: {
    outDir: "dist",
    assetsDir: "assets",
    emptyOutDir: true,
    sourcemap: false,
  },
  server: {
    proxy: {
      "/ws": { target: "ws://127.0.0.1:8000", ws: true },
      "/api": "http://127.0.0.1:8000",
    },
  },
  test: {
    include: ["test/**/*.test.ts"],
    environment: "node",
  },
});
