import { describe, expect, it } from "vitest";
import { APP_VERSION } from "../src/index.js";

describe("version", () => {
  it("is 'dev' when running from source", () => {
    expect(APP_VERSION).toBe("dev");
  });
});
