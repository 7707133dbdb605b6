// Bundles a benchmark (TypeScript, workspace sources) with esbuild and runs it: `node bench/run.mjs <file>`.
import { mkdirSync } from "node:fs";
import { basename } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

const entry = process.argv[2] ?? "bench/reconcile-cores.ts";
mkdirSync("dist/bench", { recursive: true });
const outfile = `dist/bench/${basename(entry, ".ts")}.mjs`;
await build({
  entryPoints: [entry],
  outfile,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node24",
  conditions: ["@swh/source"],
  external: ["@kubernetes/client-node", "prom-client"],
  logLevel: "warning",
});
await import(pathToFileURL(outfile).href);
