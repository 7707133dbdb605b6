import { APP_VERSION } from "./version.js";

if (process.argv.includes("--version")) {
  process.stdout.write(`swh-agent ${APP_VERSION}\n`);
  process.exit(0);
}
process.stderr.write("swh-agent: not implemented yet\n");
process.exit(1);
