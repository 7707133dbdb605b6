/**
 * The chart values operators know from other charts (issue 32, ADR 0041): per-app images with registry, tag and
 * digest, global.imageRegistry and global.imagePullSecrets, the pod settings (labels, scheduling, security
 * contexts, extra environment and volumes, ServiceAccount annotations, name overrides), and rendering without a
 * cluster. Each value is rendered and read back where a user would see it; misspelt ones are refused by name.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEPLOY_DIR, find, helmTemplate, helmTemplateRaw, type RenderedObject } from "./support/tools.ts";
import { container, envOf, podSpec } from "./support/workloads.ts";

const CUSTOM_VALUES = join(DEPLOY_DIR, "test/values-custom.yaml");
const DIGEST = "sha256:aaa26d6f378f6215d038f05802a6d861ff0f1eb8d66a561fb52ce56509422a9f";

/** The controller's and the agent's image references when rendered with `set`. */
function images(set: string[]): { controller: string; agent: string } {
  const objects = helmTemplate({ set });
  return {
    controller: container(find(objects, "Deployment", "swh-controller"), "controller").image,
    agent: container(find(objects, "DaemonSet", "swh-agent"), "agent").image,
  };
}

function workloads(objects: RenderedObject[], prefix = "swh") {
  return [
    [find(objects, "Deployment", `${prefix}-controller`), "controller"],
    [find(objects, "DaemonSet", `${prefix}-agent`), "agent"],
  ] as const;
}

describe("images", () => {
  it.each([
    [
      "the defaults: the local build, tagged with appVersion",
      [],
      "localhost/service-with-healthchecks/swh-controller:0.1.0",
      "localhost/service-with-healthchecks/swh-agent:0.1.0",
    ],
    [
      "global.imageRegistry overrides both apps' registries",
      ["global.imageRegistry=myreg.io", "agent.image.registry=other.example"],
      "myreg.io/swh-controller:0.1.0",
      "myreg.io/swh-agent:0.1.0",
    ],
    [
      "a registry with a path and a port, as release.sh --push is given",
      ["controller.image.registry=reg.example:5000/platform/"],
      "reg.example:5000/platform/swh-controller:0.1.0",
      "localhost/service-with-healthchecks/swh-agent:0.1.0",
    ],
    [
      "no registry: the repository is the whole name",
      ["agent.image.registry=", "agent.image.repository=team/lb-agent", "agent.image.tag=1.2.3"],
      "localhost/service-with-healthchecks/swh-controller:0.1.0",
      "team/lb-agent:1.2.3",
    ],
    [
      "a digest per image: each app pinned to its own",
      [`controller.image.digest=${DIGEST}`],
      `localhost/service-with-healthchecks/swh-controller:0.1.0@${DIGEST}`,
      "localhost/service-with-healthchecks/swh-agent:0.1.0",
    ],
    [
      "the deprecated image.repositoryPrefix and image.tag, still read for both apps",
      ["image.repositoryPrefix=registry.example.com/platform", "image.tag=0.0.9", "agent.image.tag=7.7.7"],
      "registry.example.com/platform/swh-controller:0.0.9",
      "registry.example.com/platform/swh-agent:0.0.9",
    ],
    [
      "global.imageRegistry ahead of the deprecated image.repositoryPrefix",
      ["image.repositoryPrefix=old.example/platform", "global.imageRegistry=new.example/platform"],
      "new.example/platform/swh-controller:0.1.0",
      "new.example/platform/swh-agent:0.1.0",
    ],
  ])("%s", (_, set, controller, agent) => {
    expect(images(set)).toEqual({ controller, agent });
  });

  it("takes the pull policy per app, or the deprecated image.pullPolicy for both", () => {
    const perApp = helmTemplate({ set: ["agent.image.pullPolicy=Always"] });
    const [[controller, c], [agent, a]] = workloads(perApp);
    expect(container(controller, c).imagePullPolicy).toBe("IfNotPresent");
    expect(container(agent, a).imagePullPolicy).toBe("Always");
    for (const [workload, app] of workloads(helmTemplate({ set: ["image.pullPolicy=Never"] })))
      expect(container(workload, app).imagePullPolicy).toBe("Never");
  });

  it("merges global.imagePullSecrets and imagePullSecrets, names or {name}, each once", () => {
    const objects = helmTemplate({
      set: [
        "global.imagePullSecrets={mirror,shared}",
        "imagePullSecrets[0].name=shared",
        "imagePullSecrets[1]=own",
      ],
    });
    for (const [workload] of workloads(objects))
      expect(podSpec(workload).imagePullSecrets).toEqual([
        { name: "mirror" },
        { name: "shared" },
        { name: "own" },
      ]);
    const none = helmTemplate();
    for (const [workload] of workloads(none)) expect(podSpec(workload).imagePullSecrets).toBeUndefined();
  });
});

describe("pod settings", () => {
  const defaults = helmTemplate();
  const custom = helmTemplate({ valuesFiles: [CUSTOM_VALUES], namespace: "lb-system" });
  const controller = find(custom, "Deployment", "lb-controller");
  const agent = find(custom, "DaemonSet", "lb-agent");

  it("runs the agent at system-node-critical by default, the controller at no class, both overridable", () => {
    const [[defaultController], [defaultAgent]] = workloads(defaults);
    expect(podSpec(defaultAgent).priorityClassName).toBe("system-node-critical");
    expect(podSpec(defaultController).priorityClassName).toBeUndefined();
    const [, [overridden]] = workloads(helmTemplate({ set: ["agent.priorityClassName=lb-critical"] }));
    expect(podSpec(overridden).priorityClassName).toBe("lb-critical");
    const [, [cleared]] = workloads(helmTemplate({ set: ["agent.priorityClassName="] }));
    expect(podSpec(cleared).priorityClassName).toBeUndefined();
  });

  it("adds podLabels to the pods, keeping the selector", () => {
    expect(controller.spec.template.metadata.labels).toMatchObject({
      "cost-center": "net-42",
      "app.kubernetes.io/component": "controller",
    });
    expect(controller.spec.selector.matchLabels).not.toHaveProperty("cost-center");
  });

  it.each([
    ["agent", "app.kubernetes.io/component"],
    ["controller", "app.kubernetes.io/instance"],
    ["agent", "service-with-healthchecks.network.deckhouse.io/metrics-job"],
  ])("refuses %s.podLabels setting %s, a label the chart's selectors or monitors rely on", (app, key) => {
    const result = helmTemplateRaw({ set: [`${app}.podLabels.${key.replaceAll(".", "\\.")}=other`] });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(`${app}.podLabels: ${key} is a label the chart sets on its pods`);
  });

  it("schedules by topologySpreadConstraints and affinity, for both apps", () => {
    expect(podSpec(controller).topologySpreadConstraints).toEqual([
      {
        maxSkew: 1,
        topologyKey: "topology.kubernetes.io/zone",
        whenUnsatisfiable: "ScheduleAnyway",
        labelSelector: { matchLabels: { "app.kubernetes.io/component": "controller" } },
      },
    ]);
    expect(podSpec(agent).affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution).toEqual({
      nodeSelectorTerms: [
        { matchExpressions: [{ key: "kubernetes.io/os", operator: "In", values: ["linux"] }] },
      ],
    });
    // Without an affinity of its own the controller keeps spreading its replicas over nodes.
    expect(podSpec(controller).affinity.podAntiAffinity).toBeDefined();
    const [, [defaultAgent]] = workloads(defaults);
    expect(podSpec(defaultAgent).affinity).toBeUndefined();
    expect(podSpec(defaultAgent).topologySpreadConstraints).toBeUndefined();
  });

  it("merges security-context overrides into the restricted defaults", () => {
    expect(podSpec(agent).securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 65534,
      runAsGroup: 65534,
      fsGroup: 65534,
      seccompProfile: { type: "RuntimeDefault" },
    });
    expect(container(agent, "agent").securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      runAsUser: 10001,
      runAsGroup: 10001,
      capabilities: { drop: ["ALL"] },
      seccompProfile: { type: "RuntimeDefault" },
    });
    // The controller was not overridden: still the defaults.
    expect(container(controller, "controller").securityContext.runAsUser).toBe(65534);
  });

  it("adds extraEnv after the chart's variables, and extraVolumes with their mounts beside the certificate's", () => {
    const c = container(controller, "controller");
    expect(c.env?.map((e) => e.name)).toEqual(["POD_NAME", "POD_NAMESPACE", "NODE_OPTIONS"]);
    expect(envOf(c, "NODE_OPTIONS")?.value).toBe("--max-old-space-size=192");
    expect(c.volumeMounts).toEqual([
      { name: "metrics-tls", mountPath: "/etc/swh/metrics-tls", readOnly: true },
      { name: "scratch", mountPath: "/scratch" },
    ]);
    expect(podSpec(controller).volumes).toEqual([
      { name: "metrics-tls", secret: { secretName: "lb-metrics-tls" } },
      { name: "scratch", emptyDir: {} },
    ]);
    const alone = find(
      helmTemplate({
        set: ["agent.extraVolumes[0].name=cache", "agent.extraVolumes[0].emptyDir.medium=Memory"],
      }),
      "DaemonSet",
      "swh-agent",
    );
    expect(podSpec(alone).volumes).toEqual([{ name: "cache", emptyDir: { medium: "Memory" } }]);
    expect(container(alone, "agent").volumeMounts).toBeUndefined();
  });

  it("annotates each app's ServiceAccount with its serviceAccount.annotations", () => {
    expect(find(custom, "ServiceAccount", "lb-controller").metadata.annotations).toEqual({
      "iam.example.test/role": "swh-controller",
    });
    expect(find(custom, "ServiceAccount", "lb-agent").metadata.annotations).toBeUndefined();
  });

  it.each(["controller", "agent"] as const)(
    "takes every pod setting for the %s from its own values",
    (app) => {
      const objects = helmTemplate({
        set: [
          `${app}.podLabels.tier=edge`,
          `${app}.podAnnotations.note=${app}`,
          `${app}.serviceAccount.annotations.role=${app}-role`,
          `${app}.extraEnv[0].name=EXTRA`,
          `${app}.extraEnv[0].value=${app}`,
          `${app}.extraVolumes[0].name=cache`,
          `${app}.extraVolumes[0].emptyDir.sizeLimit=16Mi`,
          `${app}.extraVolumeMounts[0].name=cache`,
          `${app}.extraVolumeMounts[0].mountPath=/cache`,
          `${app}.topologySpreadConstraints[0].maxSkew=2`,
          `${app}.topologySpreadConstraints[0].topologyKey=topology.kubernetes.io/zone`,
          `${app}.topologySpreadConstraints[0].whenUnsatisfiable=DoNotSchedule`,
          `${app}.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight=1`,
          `${app}.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].key=pool`,
          `${app}.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].operator=Exists`,
          `${app}.podSecurityContext.fsGroup=2000`,
          `${app}.securityContext.readOnlyRootFilesystem=false`,
        ],
      });
      const otherApp = app === "controller" ? "agent" : "controller";
      const kindOf = { controller: "Deployment", agent: "DaemonSet" } as const;
      const workload = find(objects, kindOf[app], `swh-${app}`);
      const otherWorkload = find(objects, kindOf[otherApp], `swh-${otherApp}`);
      const spec = podSpec(workload);
      expect(workload.spec.template.metadata.labels.tier).toBe("edge");
      expect(workload.spec.template.metadata.annotations.note).toBe(app);
      expect(find(objects, "ServiceAccount", `swh-${app}`).metadata.annotations).toEqual({
        role: `${app}-role`,
      });
      expect(envOf(container(workload, app), "EXTRA")?.value).toBe(app);
      expect(spec.volumes).toEqual([{ name: "cache", emptyDir: { sizeLimit: "16Mi" } }]);
      expect(container(workload, app).volumeMounts).toEqual([{ name: "cache", mountPath: "/cache" }]);
      expect(spec.topologySpreadConstraints).toEqual([
        { maxSkew: 2, topologyKey: "topology.kubernetes.io/zone", whenUnsatisfiable: "DoNotSchedule" },
      ]);
      // An affinity of the operator's replaces the controller's default anti-affinity.
      expect(spec.affinity).toEqual({
        nodeAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 1, preference: { matchExpressions: [{ key: "pool", operator: "Exists" }] } },
          ],
        },
      });
      expect(spec.securityContext.fsGroup).toBe(2000);
      expect(container(workload, app).securityContext.readOnlyRootFilesystem).toBe(false);
      // The other app is untouched.
      expect(otherWorkload.spec.template.metadata.labels.tier).toBeUndefined();
      expect(envOf(container(otherWorkload, otherApp), "EXTRA")).toBeUndefined();
      expect(podSpec(otherWorkload).volumes).toBeUndefined();
      expect(container(otherWorkload, otherApp).securityContext.readOnlyRootFilesystem).toBe(true);
    },
  );

  it("names objects by fullnameOverride and labels them by nameOverride, selectors included", () => {
    const objects = helmTemplate({ set: ["fullnameOverride=edge-lb", "nameOverride=edge"] });
    const [[ctrl], [agt]] = workloads(objects, "edge-lb");
    for (const workload of [ctrl, agt]) {
      expect(workload.spec.selector.matchLabels["app.kubernetes.io/name"]).toBe("edge");
      expect(workload.spec.template.metadata.labels["app.kubernetes.io/name"]).toBe("edge");
    }
    expect(podSpec(agt).serviceAccountName).toBe("edge-lb-agent");
    expect(find(objects, "Service", "edge-lb-agent-metrics").spec.selector["app.kubernetes.io/name"]).toBe(
      "edge",
    );
    expect(objects.filter((o) => o.metadata.name.startsWith("swh-"))).toEqual([]);
  });
});

describe("rendering without a cluster", () => {
  it("renders the defaults without --kube-version, as Argo CD or `helm template` in CI do", () => {
    const result = helmTemplateRaw({ kubeVersion: null });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("kind: ValidatingAdmissionPolicy");
  });
});

describe("values.schema.json refuses misspelt and malformed pod and image values, naming them", () => {
  it.each([
    ["controller.image.digest=sha256:abc", "/controller/image/digest", "does not match pattern"],
    ["agent.image.digest=md5:0123", "/agent/image/digest", "does not match pattern"],
    ["agent.image.tag=has space", "/agent/image/tag", "does not match pattern"],
    [`agent.image.tag=0.1.0@${DIGEST}`, "/agent/image/tag", "does not match pattern"],
    [`image.tag=0.1.0@${DIGEST}`, "/image/tag", "does not match pattern"],
    ["controller.image.repositry=x", "/controller/image", "'repositry'"],
    ["global.imageRegistry=https://myreg.io", "/global/imageRegistry", "does not match pattern"],
    ["image.registry=myreg.io", "/image", "'registry'"],
    ["agent.podLabel.team=a", "/agent", "'podLabel'"],
    ["agent.securityContext.runAsNonroot=true", "/agent/securityContext", "'runAsNonroot'"],
    ["controller.podSecurityContext.fsgroup=1", "/controller/podSecurityContext", "'fsgroup'"],
    ["agent.extraEnv[0].value=x", "/agent/extraEnv/0", "missing property 'name'"],
    ["controller.extraVolumeMounts[0].name=x", "/controller/extraVolumeMounts/0", "'mountPath'"],
    ["agent.topologySpreadConstraints[0].maxSkew=1", "/agent/topologySpreadConstraints/0", "'topologyKey'"],
    ["controller.serviceAccount.annotation.a=b", "/controller/serviceAccount", "'annotation'"],
    ["fullnameOverride=Edge_LB", "/fullnameOverride", "does not match pattern"],
  ])("rejects %s at %s", (value, path, problem) => {
    const result = helmTemplateRaw({ set: [value] });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(`at '${path}'`);
    expect(result.stderr).toContain(problem);
  });
});
