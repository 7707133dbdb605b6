import { describe, expect, it } from "vitest";
import { API_VERSION, KIND } from "../src/constants.js";
import { swhReference } from "../src/swh-reference.js";

describe("swhReference", () => {
  it("names the SWH by group version, kind, namespace, name and uid, as an Event's regarding reads it", () => {
    expect(swhReference({ namespace: "shop", name: "web", uid: "u-1" })).toEqual({
      apiVersion: "network.deckhouse.io/v1alpha1",
      kind: "ServiceWithHealthchecks",
      namespace: "shop",
      name: "web",
      uid: "u-1",
    });
    expect([API_VERSION, KIND]).toEqual(["network.deckhouse.io/v1alpha1", "ServiceWithHealthchecks"]);
  });

  it("takes an object's metadata, and leaves an unknown uid empty", () => {
    const metadata = { namespace: "shop", name: "web", resourceVersion: "7", labels: { a: "b" } };
    expect(swhReference(metadata)).toEqual({
      apiVersion: API_VERSION,
      kind: KIND,
      namespace: "shop",
      name: "web",
      uid: "",
    });
  });
});
