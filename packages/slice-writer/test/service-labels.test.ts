import type { V1Service } from "@kubernetes/client-node";
import { LABEL_HEADLESS, LABEL_SERVICE_PROXY_NAME } from "@swh/crd-types";
import { describe, expect, it } from "vitest";
import { serviceLabelsOf, sliceLabels } from "../src/index.js";

function aService(clusterIP: string | undefined, labels: Record<string, string> = {}): V1Service {
  return {
    metadata: { name: "web", namespace: "shop", labels },
    spec: clusterIP === undefined ? {} : { clusterIP },
  };
}

describe("serviceLabelsOf", () => {
  it("marks slices of a headless Service headless", () => {
    expect(serviceLabelsOf(aService("None"), {})).toEqual({ headless: true });
  });

  it("marks them headless from the SWH's spec before the Service says so", () => {
    expect(serviceLabelsOf(undefined, { clusterIP: "None" })).toEqual({ headless: true });
    expect(serviceLabelsOf(aService(undefined), { clusterIP: "None" })).toEqual({ headless: true });
  });

  it("leaves a Service with a cluster IP not headless", () => {
    expect(serviceLabelsOf(aService("10.96.0.10"), {})).toEqual({ headless: false });
    expect(serviceLabelsOf(undefined, {})).toEqual({ headless: false });
  });

  it("copies the Service's service-proxy-name, and only when it has one", () => {
    const proxied = aService("10.96.0.10", { [LABEL_SERVICE_PROXY_NAME]: "other-proxy" });
    expect(serviceLabelsOf(proxied, {})).toEqual({ headless: false, serviceProxyName: "other-proxy" });
    const empty = aService("10.96.0.10", { [LABEL_SERVICE_PROXY_NAME]: "" });
    expect(serviceLabelsOf(empty, {})).toEqual({ headless: false });
  });

  it("ends up on the slices as the labels kube-proxy reads", () => {
    const labels = sliceLabels({
      swhName: "web",
      nodeName: "node-a",
      portName: "http",
      addressFamily: "IPv4",
      serviceLabels: serviceLabelsOf(aService("None", { [LABEL_SERVICE_PROXY_NAME]: "p" }), {}),
    });
    expect(labels[LABEL_HEADLESS]).toBe("");
    expect(labels[LABEL_SERVICE_PROXY_NAME]).toBe("p");
  });
});
