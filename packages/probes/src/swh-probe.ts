#!/usr/bin/env node
/** Executable entry of the `swh-probe` CLI (see `cli.ts`); kept apart so importing the library runs nothing. */
import { runCli } from "./cli.js";

process.exitCode = await runCli(process.argv.slice(2));
