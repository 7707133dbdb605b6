import { defineSwhConfig } from "../../vitest.shared.ts";

export default defineSwhConfig("unit");
