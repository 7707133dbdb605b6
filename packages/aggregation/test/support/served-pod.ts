/** A Pod as the API server serves it (a V1Pod as the informer holds it), for `podInfoFromPod`. */
export function aServedPod(
  overrides: {
    deleting?: boolean;
    phase?: string;
    ips?: string[];
    ready?: boolean;
    annotations?: Record<string, string>;
  } = {},
) {
  const ips = overrides.ips ?? ["10.244.1.5", "fd00:10:244::1:5"];
  // A V1Pod as the informer holds it, with fields the view ignores (container names, images).
  return {
    metadata: {
      name: "web-0",
      namespace: "shop",
      uid: "uid-1",
      labels: { app: "web" },
      ...(overrides.annotations === undefined ? {} : { annotations: overrides.annotations }),
      ...(overrides.deleting ? { deletionTimestamp: new Date("2026-01-01T00:10:00Z") } : {}),
    },
    spec: {
      nodeName: "node-a",
      containers: [
        {
          name: "app",
          ports: [
            { name: "http", containerPort: 8080 },
            { containerPort: 53, protocol: "UDP" },
          ],
        },
        { name: "side", ports: [{ name: "metrics", containerPort: 9090, protocol: "TCP" }] },
      ],
    },
    status: {
      phase: overrides.phase ?? "Running",
      ...(ips[0] ? { podIP: ips[0] } : {}),
      podIPs: ips.map((ip) => ({ ip })),
      startTime: new Date("2026-01-01T00:00:00Z"),
      conditions: [{ type: "Ready", status: overrides.ready === false ? "False" : "True" }],
      containerStatuses: [
        {
          name: "app",
          image: "x",
          imageID: "",
          ready: true,
          restartCount: 0,
          state: { running: { startedAt: new Date("2026-01-01T00:00:05Z") } },
        },
      ],
    },
  };
}
