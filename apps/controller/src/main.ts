import { APP_VERSION } from "./version.js";

if (process.argv.includes("--version")) {
  process.stdout.write(`swh-controller ${APP_VERSION}\n`);
  process.exit(0);
}
process.stderr.write("swh-controller: not implemented yet\n");
process.exit(1);
