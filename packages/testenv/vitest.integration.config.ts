import { defineSwhConfig } from "../../vitest.shared.ts";

// Other packages (all two levels below the repo root) use "../../packages/testenv/src/global-setup.ts".
export default defineSwhConfig("integration", { globalSetup: ["./src/global-setup.ts"] });
