/**
 * The chart's prometheus-operator objects (issue 32, ADR 0017, ADR 0041): monitors that authenticate in one of the
 * ways prometheus-operator offers today (scrape class, a token Secret, a token file only when asked), verify the
 * serving certificate against its CA unless told not to, and take namespace, timeout and relabelings; alerts with a
 * runbook_url into docs/troubleshooting.md that can be disabled, delayed or relabelled one by one; and the
 * controller's leader Lease named as the code names it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CONTROLLER_LEADER_LEASE } from "@swh/crd-types/internal";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { anchorsOf } from "./support/markdown.ts";
import {
  CHART_DIR,
  DEPLOY_DIR,
  find,
  helmTemplate,
  helmTemplateRaw,
  type RenderedObject,
  ROOT_DIR,
} from "./support/tools.ts";

const CUSTOM_VALUES = join(DEPLOY_DIR, "test/values-custom.yaml");

interface AlertRule {
  alert: string;
  expr: string;
  for: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/** The rules of chart/files/alerts.yaml, the file promtool tests and deploy/prometheus/alerts.yaml copies. */
const FILE_RULES: AlertRule[] = parse(
  readFileSync(join(CHART_DIR, "files/alerts.yaml"), "utf8"),
).groups.flatMap((g: { rules: AlertRule[] }) => g.rules);

function renderedRules(objects: RenderedObject[], name = "swh-alerts"): AlertRule[] {
  return find(objects, "PrometheusRule", name).spec.groups.flatMap((g: { rules: AlertRule[] }) => g.rules);
}

/** The ServiceMonitor (or PodMonitor) of the agent rendered with `set`, or helm's error. */
function agentEndpoint(set: string[], kind: "ServiceMonitor" | "PodMonitor" = "ServiceMonitor") {
  const objects = helmTemplate({
    set: [`metrics.${kind === "ServiceMonitor" ? "serviceMonitor" : "podMonitor"}.enabled=true`, ...set],
  });
  const monitor = find(objects, kind, "swh-agent");
  return { monitor, endpoint: (monitor.spec.endpoints ?? monitor.spec.podMetricsEndpoints)[0] };
}

function refusal(set: string[]): string {
  const result = helmTemplateRaw({ set });
  expect(result.status, result.stdout.slice(0, 200)).not.toBe(0);
  return result.stderr;
}

const SKIP = "metrics.tls.insecureSkipVerify=true";

describe("monitors with a non-default values file", () => {
  const objects = helmTemplate({ valuesFiles: [CUSTOM_VALUES], namespace: "lb-system" });

  it("scrape through the scrape class, verify the Secret's CA by the Service name, with timeout and relabelings", () => {
    const monitor = find(objects, "ServiceMonitor", "lb-controller");
    expect(monitor.metadata.labels?.release).toBe("prometheus");
    expect(monitor.metadata.namespace).toBe("lb-system");
    expect(monitor.spec.scrapeClass).toBe("projected-token");
    expect(monitor.spec.endpoints).toEqual([
      {
        port: "https-metrics",
        path: "/metrics",
        scheme: "https",
        interval: "15s",
        scrapeTimeout: "10s",
        honorLabels: true,
        relabelings: [{ action: "replace", targetLabel: "cluster", replacement: "lab" }],
        metricRelabelings: [{ action: "drop", sourceLabels: ["__name__"], regex: "nodejs_.*" }],
        tlsConfig: {
          ca: { secret: { name: "lb-metrics-tls", key: "ca.crt" } },
          serverName: "lb-controller-metrics.lb-system.svc",
        },
      },
    ]);
    const podMonitor = find(objects, "PodMonitor", "lb-agent");
    expect(podMonitor.spec.scrapeClass).toBe("projected-token");
    expect(podMonitor.spec.podMetricsEndpoints[0]).toMatchObject({
      port: "https-metrics",
      scheme: "https",
      tlsConfig: {
        ca: { secret: { name: "lb-metrics-tls", key: "ca.crt" } },
        serverName: "lb-agent-metrics.lb-system.svc",
      },
    });
    expect(JSON.stringify(objects)).not.toContain("insecureSkipVerify");
    expect(JSON.stringify(objects)).not.toContain("bearerTokenFile");
  });

  it("ships the dashboard ConfigMap", () => {
    const dashboard = find(objects, "ConfigMap", "lb-dashboard");
    expect(dashboard.metadata.labels?.grafana_dashboard).toBe("1");
    expect(JSON.parse(dashboard.data["service-with-healthchecks.json"]).uid).toBe(
      "service-with-healthchecks",
    );
  });

  it("leaves out a disabled alert, and delays and relabels another, with runbook URLs under runbookBaseUrl", () => {
    const rules = renderedRules(objects, "lb-alerts");
    expect(rules.map((r) => r.alert)).toEqual(
      FILE_RULES.map((r) => r.alert).filter((name) => name !== "SwhEndpointsFlapping"),
    );
    const writes = rules.find((r) => r.alert === "SwhSliceWriteErrors");
    expect(writes?.for).toBe("20m");
    expect(writes?.labels).toEqual({ severity: "critical", team: "networking" });
    for (const rule of rules) {
      const original = FILE_RULES.find((r) => r.alert === rule.alert);
      expect(rule.annotations.runbook_url).toBe(
        `https://git.example.test/platform/service-with-healthchecks/blob/v9.9.9/${original?.annotations.runbook_url}`,
      );
      expect(rule.expr).toBe(original?.expr);
      expect({ ...rule.annotations, runbook_url: "" }).toEqual({ ...original?.annotations, runbook_url: "" });
    }
  });
});

describe("monitor credentials", () => {
  it("sends the token of a Secret as authorization.credentials", () => {
    const { monitor, endpoint } = agentEndpoint([SKIP, "metrics.authorization.secretName=prometheus-token"]);
    expect(monitor.spec.scrapeClass).toBeUndefined();
    expect(endpoint.authorization).toEqual({
      type: "Bearer",
      credentials: { name: "prometheus-token", key: "token" },
    });
    expect(endpoint.bearerTokenFile).toBeUndefined();
    const pod = agentEndpoint([SKIP, "metrics.authorization.secretName=prometheus-token"], "PodMonitor");
    expect(pod.endpoint.authorization.credentials.name).toBe("prometheus-token");
  });

  it("names a token file only when bearerTokenFile is given", () => {
    const file = "/var/run/secrets/kubernetes.io/serviceaccount/token";
    const { endpoint } = agentEndpoint([SKIP, `metrics.serviceMonitor.bearerTokenFile=${file}`]);
    expect(endpoint.bearerTokenFile).toBe(file);
    expect(endpoint.authorization).toBeUndefined();
  });

  it.each([
    ["no way at all", [], "got 0"],
    ["two ways", ["metrics.scrapeClass=c", "metrics.authorization.secretName=s"], "got 2"],
  ])("refuses a ServiceMonitor with %s, naming the three values", (_, set, count) => {
    const stderr = refusal(["metrics.serviceMonitor.enabled=true", SKIP, ...set]);
    expect(stderr).toContain(
      `metrics.serviceMonitor needs exactly one way to authenticate to /metrics, ${count}`,
    );
    expect(stderr).toContain(
      "metrics.scrapeClass, metrics.authorization.secretName or metrics.serviceMonitor.bearerTokenFile",
    );
  });

  it("refuses a PodMonitor that has only a token file, which it cannot read", () => {
    const stderr = refusal([
      "metrics.podMonitor.enabled=true",
      SKIP,
      "metrics.serviceMonitor.bearerTokenFile=/var/run/secrets/kubernetes.io/serviceaccount/token",
    ]);
    expect(stderr).toContain("metrics.podMonitor needs exactly one way to authenticate");
    expect(stderr).toContain("a PodMonitor cannot read a token file");
  });
});

describe("monitor TLS", () => {
  it("refuses to scrape the self-signed certificates unverified unless insecureSkipVerify is set", () => {
    const stderr = refusal(["metrics.serviceMonitor.enabled=true", "metrics.scrapeClass=c"]);
    expect(stderr).toContain("metrics.serviceMonitor verifies the metrics certificate");
    expect(stderr).toContain("metrics.tls.secretName");
    expect(stderr).toContain("metrics.tls.insecureSkipVerify=true");
    const { endpoint } = agentEndpoint(["metrics.scrapeClass=c", SKIP]);
    expect(endpoint.tlsConfig).toEqual({ insecureSkipVerify: true });
  });

  it("refuses insecureSkipVerify beside a certificate Secret, which the monitors verify", () => {
    const stderr = refusal([
      "metrics.serviceMonitor.enabled=true",
      "metrics.scrapeClass=c",
      SKIP,
      "metrics.tls.secretName=swh-metrics-tls",
    ]);
    expect(stderr).toContain("metrics.tls.insecureSkipVerify cannot be set with metrics.tls.secretName");
  });

  it("verifies with metrics.tls.monitorCa, a CA in the monitors' own namespace, when one is given", () => {
    const { endpoint } = agentEndpoint([
      "metrics.scrapeClass=c",
      "metrics.tls.secretName=swh-metrics-tls",
      "metrics.tls.monitorCa.configMap.name=swh-ca-bundle",
      "metrics.tls.monitorCa.configMap.key=ca.crt",
    ]);
    expect(endpoint.tlsConfig).toEqual({
      ca: { configMap: { name: "swh-ca-bundle", key: "ca.crt" } },
      serverName: "swh-agent-metrics.swh-system.svc",
    });
    const stderr = refusal([
      "metrics.serviceMonitor.enabled=true",
      "metrics.scrapeClass=c",
      "metrics.tls.monitorCa.secret.name=ca",
      "metrics.tls.monitorCa.secret.key=ca.crt",
    ]);
    expect(stderr).toContain("metrics.tls.monitorCa needs metrics.tls.secretName");
  });

  it("puts the monitors in serviceMonitor.namespace, still selecting the release namespace's pods", () => {
    const { monitor } = agentEndpoint([
      "metrics.scrapeClass=c",
      SKIP,
      "metrics.serviceMonitor.namespace=monitoring",
    ]);
    expect(monitor.metadata.namespace).toBe("monitoring");
    expect(monitor.spec.namespaceSelector).toEqual({ matchNames: ["swh-system"] });
  });
});

describe("PodMonitor tuning", () => {
  it("takes its own namespace, interval, timeout and relabelings", () => {
    const { monitor, endpoint } = agentEndpoint(
      [
        "metrics.scrapeClass=c",
        SKIP,
        "metrics.podMonitor.namespace=monitoring",
        "metrics.podMonitor.interval=1m",
        "metrics.podMonitor.scrapeTimeout=20s",
        "metrics.podMonitor.relabelings[0].action=labeldrop",
        "metrics.podMonitor.relabelings[0].regex=pod_template_hash",
        "metrics.podMonitor.metricRelabelings[0].action=drop",
        "metrics.podMonitor.metricRelabelings[0].regex=nodejs_.*",
        "metrics.podMonitor.metricRelabelings[0].sourceLabels={__name__}",
      ],
      "PodMonitor",
    );
    expect(monitor.metadata.namespace).toBe("monitoring");
    expect(monitor.spec.namespaceSelector).toEqual({ matchNames: ["swh-system"] });
    expect(endpoint).toMatchObject({
      interval: "1m",
      scrapeTimeout: "20s",
      relabelings: [{ action: "labeldrop", regex: "pod_template_hash" }],
      metricRelabelings: [{ action: "drop", regex: "nodejs_.*", sourceLabels: ["__name__"] }],
    });
  });
});

describe("alerts", () => {
  const troubleshooting = anchorsOf(join(ROOT_DIR, "docs/troubleshooting.md"));

  it.each(FILE_RULES.map((r) => [r.alert, r]))(
    "%s has a runbook_url to its own section of docs/troubleshooting.md",
    (name, rule) => {
      const [path, fragment = ""] = rule.annotations.runbook_url?.split("#") ?? [];
      expect(path).toBe("docs/troubleshooting.md");
      expect(fragment).toBe(name.toLowerCase());
      expect(troubleshooting.has(fragment), `no heading #${fragment}`).toBe(true);
    },
  );

  it("renders every rule of the file unchanged with the default settings", () => {
    const rules = renderedRules(helmTemplate({ set: ["metrics.prometheusRule.enabled=true"] }));
    expect(rules).toEqual(FILE_RULES);
  });

  it("renders no group at all when every alert is disabled", () => {
    const set = FILE_RULES.map((r) => `metrics.prometheusRule.alerts.${r.alert}.enabled=false`);
    const rule = find(
      helmTemplate({ set: ["metrics.prometheusRule.enabled=true", ...set] }),
      "PrometheusRule",
      "swh-alerts",
    );
    expect(rule.spec.groups).toEqual([]);
  });

  it.each([
    [
      "metrics.prometheusRule.alerts.SwhControllerDwn.enabled=false",
      "/metrics/prometheusRule/alerts",
      "'SwhControllerDwn'",
    ],
    [
      "metrics.prometheusRule.alerts.SwhControllerDown.severity=info",
      "/metrics/prometheusRule/alerts/SwhControllerDown",
      "'severity'",
    ],
    [
      "metrics.prometheusRule.alerts.SwhControllerDown.for=soon",
      "/metrics/prometheusRule/alerts/SwhControllerDown/for",
      "does not match",
    ],
    [
      "metrics.prometheusRule.runbookBaseUrl=wiki/swh",
      "/metrics/prometheusRule/runbookBaseUrl",
      "does not match",
    ],
    ["metrics.serviceMonitor.scrapeTimout=5s", "/metrics/serviceMonitor", "'scrapeTimout'"],
    [
      "metrics.serviceMonitor.bearerTokenFile=relative/token",
      "/metrics/serviceMonitor/bearerTokenFile",
      "does not match",
    ],
    ["metrics.authorization.secret=x", "/metrics/authorization", "'secret'"],
    ["metrics.tls.monitorCa.configmap.name=x", "/metrics/tls/monitorCa", "'configmap'"],
  ])("rejects %s, naming %s", (value, path, problem) => {
    const stderr = refusal([value]);
    expect(stderr).toContain(`at '${path}'`);
    expect(stderr).toContain(problem);
  });
});

describe("the controller's leader Lease", () => {
  it("is named in the alert and in NOTES.txt as the controller names it, whatever namePrefix is", () => {
    const noLeader = FILE_RULES.find((r) => r.alert === "SwhControllerNoLeader");
    expect(noLeader?.annotations.description).toContain(`Lease ${CONTROLLER_LEADER_LEASE} `);
    // helm renders NOTES.txt only on install (which needs a cluster here): read the template itself.
    const notes = readFileSync(join(CHART_DIR, "templates/NOTES.txt"), "utf8");
    expect(notes).toContain(`get lease ${CONTROLLER_LEADER_LEASE}\n`);
    expect(notes).not.toMatch(/namePrefix \}\}-controller-leader/);
  });
});
