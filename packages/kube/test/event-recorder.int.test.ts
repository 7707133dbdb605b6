import { CoreV1Api, EventsV1Api } from "@kubernetes/client-node";
import { type TestCluster, testCluster, waitFor } from "@swh/testenv";
import { beforeAll, describe, expect, it } from "vitest";
import { EventRecorder } from "../src/index.js";
import { memoryLogger } from "./support/quiet-logger.js";

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await testCluster();
});

describe("EventRecorder against a real API server", () => {
  it("creates an Event about an object and aggregates a repeat into its series count", async () => {
    const namespace = await cluster.createNamespace("ev");
    const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    const events = cluster.kubeConfig.makeApiClient(EventsV1Api);
    const cm = await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: "subject" } } });
    const subject = {
      kind: "ConfigMap",
      apiVersion: "v1",
      name: "subject",
      namespace,
      uid: cm.metadata?.uid ?? "",
    };
    const logger = memoryLogger();
    const recorder = new EventRecorder({ kubeConfig: cluster.kubeConfig, component: "swh-test", logger });

    recorder.record(subject, "Warning", "ProbeFailed", "port 80: connection refused");
    await recorder.flush();
    expect(logger.lines.filter((l) => l.level === "warn")).toEqual([]);
    const created = await waitFor("event created", async () => {
      const list = await events.listNamespacedEvent({ namespace });
      return list.items.length === 1 ? list.items[0] : undefined;
    });
    expect(created).toMatchObject({
      reason: "ProbeFailed",
      note: "port 80: connection refused",
      type: "Warning",
      reportingController: "swh-test",
      regarding: { kind: "ConfigMap", name: "subject", uid: subject.uid },
    });

    recorder.record(subject, "Warning", "ProbeFailed", "port 80: connection refused");
    await recorder.flush();
    const list = await events.listNamespacedEvent({ namespace });
    expect(list.items).toHaveLength(1);
    expect(list.items[0]?.series?.count).toBe(2);
    expect(logger.lines.filter((l) => l.level === "warn")).toEqual([]);
  });
});
