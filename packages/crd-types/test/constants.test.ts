import { describe, expect, it } from "vitest";
import { API_VERSION, GROUP, KIND, PLURAL } from "../src/index.js";

describe("constants", () => {
  it("names the resource like the original module so existing manifests keep working", () => {
    expect(API_VERSION).toBe("network.deckhouse.io/v1alpha1");
    expect(KIND).toBe("ServiceWithHealthchecks");
    expect(`${PLURAL}.${GROUP}`).toBe("servicewithhealthchecks.network.deckhouse.io");
  });
});
