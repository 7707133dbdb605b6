/**
 * The typed manifest of the README, as code: the README test checks that the YAML printed in the README is
 * exactly what this code prints.
 */
import { httpProbe, serviceWithHealthchecks, tcpProbe } from "../../src/index.js";

/** Returns the README's example manifest. */
export function readmeExample() {
  return serviceWithHealthchecks(
    { name: "web", namespace: "prod" },
    {
      selector: { app: "vm-web-and-mail" },
      ports: [
        { name: "http", port: 80, targetPort: 8080 },
        { name: "smtp", port: 25, targetPort: 2525 },
      ],
      healthcheck: {
        periodSeconds: 5,
        probes: [
          httpProbe(8080, { path: "/healthz", code: [200, 204] }),
          tcpProbe(2525, { failureThreshold: 2 }),
        ],
      },
    },
  );
}
