// Bundles the app in the current directory (apps/<name>) into one ESM file, dist/main.mjs, so its image ships
// without node_modules. Run from the app's directory: `node ../../scripts/bundle-app.mjs`.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";

const pkg = JSON.parse(readFileSync(join(process.cwd(), "package.json"), "utf8"));
await build({
  entryPoints: ["src/main.ts"],
  outfile: "dist/main.mjs",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node24",
  conditions: ["@swh/source"],
  // The whole source text stays in the V8 heap for the life of the process (the agent's was 14 MB: 7 MB, stored
  // two bytes a character because of a few non-ASCII comments). Dropping whitespace and comments and folding
  // syntax shrinks it without renaming anything, so stack traces keep their function names.
  minifyWhitespace: true,
  minifySyntax: true,
  charset: "ascii",
  sourcemap: "linked",
  legalComments: "linked",
  define: { __SWH_VERSION__: JSON.stringify(pkg.version) },
  // Some dependencies are CommonJS and call require(); give the ESM bundle one.
  banner: {
    js: "import { createRequire as __swhCreateRequire } from 'node:module'; const require = __swhCreateRequire(import.meta.url);",
  },
  logLevel: "warning",
});
