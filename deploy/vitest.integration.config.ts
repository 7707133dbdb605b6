import { fileURLToPath } from "node:url";
import { defineSwhConfig } from "../vitest.shared.ts";

export default defineSwhConfig("integration", {
  globalSetup: [fileURLToPath(import.meta.resolve("@swh/testenv/global-setup"))],
});
