import { defineSwhConfig } from "../vitest.shared.ts";

export default defineSwhConfig("integration", {
  globalSetup: ["../packages/testenv/src/global-setup.ts"],
});
