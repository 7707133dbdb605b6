/**
 * A web workload for the real node: Debian's static busybox serving HTTP on 8080 from an emptyDir. `/` answers
 * 200 with header `X-Pod: <pod name>` (a CGI script: the traffic counters tell pods apart by it), `/healthz` is a
 * file, so a test fails a pod's check by removing it (`execInPod … rm`) and restores it by writing it again.
 */
import type { V1Deployment } from "@kubernetes/client-node";

/** The file behind `/healthz` inside the container. */
export const HEALTHZ_FILE = "/tmp/www/healthz";
/** The container's name. */
export const WEB_CONTAINER = "web";

const START = [
  "mkdir -p /tmp/www/cgi-bin",
  // HTTP wants CRLF after each header line; busybox httpd copies a CGI script's output as it is.
  `printf '#!/bin/sh\\nprintf "Content-Type: text/plain\\\\r\\\\nX-Pod: %s\\\\r\\\\n\\\\r\\\\nok\\\\n"\\n' "$POD_NAME" > /tmp/www/cgi-bin/index.cgi`,
  "chmod +x /tmp/www/cgi-bin/index.cgi",
  `echo ok > ${HEALTHZ_FILE}`,
  "exec httpd -f -p 8080 -h /tmp/www",
].join(" && ");

/** Options of {@link busyboxWebDeployment}. */
export interface BusyboxWebOptions {
  name: string;
  namespace: string;
  image: string;
  replicas: number;
  /** Readiness gate condition types (e.g. `swh.network.deckhouse.io/<swh>`): rollouts wait on the SWH's verdict. */
  readinessGates?: readonly string[];
}

/** A Deployment of {@link BusyboxWebOptions.replicas} busybox web pods labelled `app: <name>`, port `http` 8080. */
export function busyboxWebDeployment(opts: BusyboxWebOptions): V1Deployment {
  const labels = { app: opts.name };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: opts.name, namespace: opts.namespace },
    spec: {
      replicas: opts.replicas,
      selector: { matchLabels: labels },
      // An old pod goes only when a new one is Ready (with a gate: passes the SWH's checks).
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      template: {
        metadata: { labels },
        spec: {
          terminationGracePeriodSeconds: 5,
          ...(opts.readinessGates
            ? { readinessGates: opts.readinessGates.map((conditionType) => ({ conditionType })) }
            : {}),
          containers: [
            {
              name: WEB_CONTAINER,
              image: opts.image,
              imagePullPolicy: "Never",
              command: ["sh", "-c", START],
              env: [{ name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }],
              ports: [{ name: "http", containerPort: 8080 }],
              resources: { requests: { cpu: "5m", memory: "8Mi" }, limits: { memory: "32Mi" } },
              securityContext: {
                readOnlyRootFilesystem: true,
                runAsNonRoot: true,
                allowPrivilegeEscalation: false,
                capabilities: { drop: ["ALL"] },
              },
              volumeMounts: [{ name: "tmp", mountPath: "/tmp" }],
            },
          ],
          volumes: [{ name: "tmp", emptyDir: {} }],
        },
      },
    },
  };
}
