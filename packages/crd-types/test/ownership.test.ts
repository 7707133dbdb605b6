import { describe, expect, it } from "vitest";
import { API_VERSION, KIND, type OwnerReference } from "../src/index.js";
import {
  endpointPublication,
  isControlledBy,
  isControllerRefTo,
  ownerReferenceTo,
  type ServiceControlView,
} from "../src/internal.js";

const swh = { metadata: { name: "db", namespace: "team-a", uid: "uid-1" } };

function ours(): OwnerReference {
  return { apiVersion: API_VERSION, kind: KIND, name: "db", uid: "uid-1", controller: true };
}

function aService(
  ownerReferences: OwnerReference[] = [ours()],
  selector?: Record<string, string>,
): ServiceControlView {
  return {
    metadata: { name: "db", namespace: "team-a", ownerReferences },
    spec: selector === undefined ? {} : { selector },
  };
}

describe("ownerReferenceTo / isControllerRefTo", () => {
  it("builds the controller reference that isControllerRefTo recognises", () => {
    expect(ownerReferenceTo(swh)).toEqual(ours());
    expect(isControllerRefTo(ownerReferenceTo(swh), swh)).toBe(true);
  });

  it.each([
    ["a namesake with another uid", { ...ours(), uid: "uid-0" }],
    ["a non-controller reference", { ...ours(), controller: false }],
    ["another kind with the same uid", { ...ours(), kind: "Deployment" }],
  ])("rejects %s", (_what, ref) => {
    expect(isControllerRefTo(ref, swh)).toBe(false);
  });

  it("never matches an SWH without a uid, not even an empty reference uid", () => {
    const noUid = { metadata: { name: "db" } };
    expect(isControllerRefTo({ ...ours(), uid: "" }, noUid)).toBe(false);
    expect(isControlledBy(aService([{ ...ours(), uid: "" }]), { metadata: { name: "db", uid: "" } })).toBe(
      false,
    );
  });
});

describe("endpointPublication", () => {
  it("publishes for a selector-less Service this SWH controls, beside other non-controller owners", () => {
    const other = { apiVersion: "v1", kind: "ConfigMap", name: "c", uid: "c1" };
    expect(endpointPublication(swh, aService([other, ours()]))).toEqual({ publish: true });
  });

  it.each([
    ["there is no Service", undefined, "ServiceMissing"],
    [
      "the Service selects pods (even one that names us)",
      aService([ours()], { app: "db" }),
      "ServiceHasSelector",
    ],
    ["the Service has a selector and no owner", aService([], { app: "db" }), "ServiceHasSelector"],
    [
      "another object controls the Service",
      aService([{ apiVersion: "apps/v1", kind: "Deployment", name: "x", uid: "x1", controller: true }]),
      "ServiceOwnedByOther",
    ],
    ["a deleted namesake SWH controls it", aService([{ ...ours(), uid: "uid-0" }]), "ServiceOwnedByOther"],
    ["nothing controls it yet", aService([{ ...ours(), controller: false }]), "ServiceNotAdopted"],
  ])("withholds endpoints when %s", (_what, service, reason) => {
    expect(endpointPublication(swh, service)).toMatchObject({ publish: false, reason });
  });

  it("never publishes for default/kubernetes, even when the Service names the SWH as its controller", () => {
    const kubernetes = { metadata: { name: "kubernetes", namespace: "default", uid: "uid-1" } };
    const service = { metadata: { name: "kubernetes", namespace: "default", ownerReferences: [ours()] } };
    expect(endpointPublication(kubernetes, service)).toMatchObject({
      publish: false,
      reason: "ServiceReserved",
    });
    const elsewhere = { metadata: { ...kubernetes.metadata, namespace: "team-a" } };
    expect(endpointPublication(elsewhere, service)).toEqual({ publish: true });
  });
});
