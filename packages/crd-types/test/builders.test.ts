import { describe, expect, it } from "vitest";
import {
  httpProbe,
  postgresProbe,
  type ServiceWithHealthchecks,
  serviceWithHealthchecks,
  tcpProbe,
  validate,
} from "../src/index.js";

describe("builders", () => {
  it("build exactly the manifest a user would write, which validates", () => {
    const built: ServiceWithHealthchecks = serviceWithHealthchecks(
      { name: "db", namespace: "prod", labels: { team: "data" } },
      {
        selector: { app: "postgres" },
        ports: [{ name: "pg", port: 5432, targetPort: 5432 }],
        healthcheck: {
          probes: [postgresProbe(5432, { dbName: "app", authSecretName: "pg-creds", timeoutSeconds: 2 })],
        },
      },
    );
    expect(built).toEqual({
      apiVersion: "network.deckhouse.io/v1alpha1",
      kind: "ServiceWithHealthchecks",
      metadata: { name: "db", namespace: "prod", labels: { team: "data" } },
      spec: {
        selector: { app: "postgres" },
        ports: [{ name: "pg", port: 5432, targetPort: 5432 }],
        healthcheck: {
          probes: [
            {
              mode: "PostgreSQL",
              timeoutSeconds: 2,
              postgreSQL: { targetPort: 5432, dbName: "app", authSecretName: "pg-creds" },
            },
          ],
        },
      },
    });
    expect(validate(built)).toEqual([]);
  });

  it("put timing on the probe and protocol settings in the sub-object", () => {
    expect(httpProbe("web", { path: "/healthz", scheme: "HTTPS", failureThreshold: 5, code: [204] })).toEqual(
      {
        mode: "HTTP",
        failureThreshold: 5,
        http: { targetPort: "web", path: "/healthz", scheme: "HTTPS", code: [204] },
      },
    );
    expect(tcpProbe(2525, { successThreshold: 2 })).toEqual({
      mode: "TCP",
      successThreshold: 2,
      tcp: { targetPort: 2525 },
    });
  });

  it("copy their inputs so later changes by the caller do not leak in", () => {
    const spec = { selector: { app: "a" } };
    const built = serviceWithHealthchecks({ name: "a" }, spec);
    spec.selector.app = "b";
    expect(built.spec.selector).toEqual({ app: "a" });
  });
});
