#!/usr/bin/env node
// The `swh-probe` executable. It is a committed file, not a path into dist/, so that `pnpm install` can link it
// on a fresh clone before anything is built; the CLI itself is src/cli.ts, built to dist/cli.js.
import { runCli } from "../dist/cli.js";

process.exitCode = await runCli(process.argv.slice(2));
