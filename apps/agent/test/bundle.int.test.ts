/** The bundle as the image runs it: the checks shared by both apps (@swh/testenv), with this app's name and flags. */
import { appBundleChecks } from "@swh/testenv";
import { describe, it } from "vitest";

describe("bundle", () => {
  const checks = appBundleChecks({
    appDir: new URL("..", import.meta.url),
    binary: "swh-agent",
    flagDefaults: [
      ["--health-bind-address HOST:PORT", ":8081"],
      ["--metrics-bind-address HOST:PORT", ":8443"],
      ["--log-level LEVEL", "info"],
    ],
  });
  for (const check of checks) it(check.name, check.run);
});
