import type { V1Service } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { type ServiceSources, serviceOfSwh } from "../src/internal/service-of-swh.js";

const labelled: V1Service = { metadata: { name: "web", namespace: "ns", labels: { managed: "yes" } } };
const unlabelled: V1Service = { metadata: { name: "web", namespace: "ns" } };

function sources(cached: V1Service | undefined, hasSlices: boolean, stored: V1Service | undefined) {
  const fetches: string[] = [];
  const s: ServiceSources = {
    cached: () => cached,
    hasSlices: () => hasSlices,
    fetch: async (namespace, name) => {
      fetches.push(`${namespace}/${name}`);
      return stored;
    },
  };
  return { s, fetches };
}

describe("serviceOfSwh", () => {
  it.each([
    ["a labelled Service comes from the cache, without a request", labelled, true, undefined, labelled, 0],
    [
      "an unlabelled Service while the node has nothing to withdraw: absent, no request",
      undefined,
      false,
      unlabelled,
      undefined,
      0,
    ],
    [
      "an unlabelled Service while the node has slices: read from the API server",
      undefined,
      true,
      unlabelled,
      unlabelled,
      1,
    ],
    [
      "a Service that does not exist while the node has slices: absent, after one request",
      undefined,
      true,
      undefined,
      undefined,
      1,
    ],
  ])("%s", async (_, cached, hasSlices, stored, expected, requests) => {
    const { s, fetches } = sources(cached, hasSlices, stored);
    expect(await serviceOfSwh("ns", "web", s)).toBe(expected);
    expect(fetches).toHaveLength(requests);
  });

  it("fails when the API server cannot answer, so the slices stay as they are", async () => {
    const s: ServiceSources = {
      cached: () => undefined,
      hasSlices: () => true,
      fetch: () => Promise.reject(new Error("connection refused")),
    };
    await expect(serviceOfSwh("ns", "web", s)).rejects.toThrow("connection refused");
  });
});
