/**
 * The agent against the real API server, in-process, as its own ServiceAccount with the RBAC deploy/manifests
 * ships, probing real HTTP/TCP/PostgreSQL servers bound to pod addresses of the test network namespace. Each test
 * has its own namespace, node, agent and third address octet.
 */
import { CoordinationV1Api, EventsV1Api, type V1EndpointSlice } from "@kubernetes/client-node";
import {
  ANNOTATION_DRAIN,
  LABEL_MANAGED_BY,
  LABEL_NODE,
  LABEL_SERVICE_NAME,
  MANAGED_BY,
  type ProbeSpec,
  postgresCredentialsSecret,
  READINESS_GATE_PREFIX,
} from "@swh/crd-types";
import { agentLeaseName } from "@swh/node-liveness";
import {
  annotatePod,
  applyReadinessGates,
  createNode,
  createPod,
  markPodTerminating,
  startPostgres,
  waitFor,
} from "@swh/testenv";
import { describe, expect, it } from "vitest";
import { INSTALL_NAMESPACE, metricValue, published } from "./support/harness.js";
import { agentSuite, http, tcp } from "./support/suite.js";

const suite = agentSuite(20);
const scenario = (prefix: string) => suite.scenario(prefix);

describe("agent", () => {
  it("takes a pod out of the port whose probe fails and keeps it ready on the other port", async () => {
    const s = await scenario("ports");
    const ip = `${s.net}.5`;
    const web = await s.backend(ip, 8080);
    await s.backend(ip, 9090);
    await s.pod("web-0", [ip], { app: "web" });
    await suite.admin.createSwh(s.namespace, "web", {
      selector: { app: "web" },
      ports: [
        { name: "http", port: 80, targetPort: 8080 },
        { name: "admin", port: 90, targetPort: 9090 },
      ],
      healthcheck: { initialDelaySeconds: 0, periodSeconds: 1, probes: [http(8080), http(9090)] },
    });
    const both = await s.waitEndpoint("ready on 8080", "web", 8080, ip, (e) => e.ready);
    expect(both).toMatchObject({ nodeName: s.node, zone: "zone-a", serving: true, terminating: false });
    await s.waitEndpoint("ready on 9090", "web", 9090, ip, (e) => e.ready);

    web.status.set("/healthz", 503);
    const failing = await s.waitEndpoint("withdrawn on 8080", "web", 8080, ip, (e) => !e.ready);
    expect(failing).toMatchObject({ serving: false, reason: "HTTPStatus" });
    expect(published(await s.slices(), "web", 9090, ip)).toMatchObject({ ready: true, serving: true });

    const events = await suite.cluster.kubeConfig
      .makeApiClient(EventsV1Api)
      .listNamespacedEvent({ namespace: s.namespace });
    expect(events.items.map((e) => e.reason)).toContain("EndpointNotReady");

    web.status.set("/healthz", 200);
    await s.waitEndpoint("back on 8080", "web", 8080, ip, (e) => e.ready && e.reason === undefined);
  });

  it("lets one SWH withdraw a pod while another SWH selecting it keeps it", async () => {
    const s = await scenario("two-swh");
    const ip = `${s.net}.5`;
    const b = await s.backend(ip, 8080);
    b.status.set("/strict", 500);
    await s.pod("p", [ip], { app: "x" });
    const spec = (probe: ProbeSpec) => ({
      selector: { app: "x" },
      ports: [{ name: "http", port: 80, targetPort: 8080 }],
      healthcheck: { initialDelaySeconds: 0, periodSeconds: 1, probes: [probe] },
    });
    await suite.admin.createSwh(s.namespace, "strict", spec(http(8080, "/strict")));
    await suite.admin.createSwh(s.namespace, "lenient", spec(tcp(8080)));
    await s.waitEndpoint("kept by lenient", "lenient", 8080, ip, (e) => e.ready);
    const strict = await s.waitEndpoint(
      "probed by strict",
      "strict",
      8080,
      ip,
      (e) => e.reason === "HTTPStatus",
    );
    expect(strict.ready).toBe(false);
  });

  it("requires every probe on a port to pass", async () => {
    const s = await scenario("all-probes");
    const ip = `${s.net}.5`;
    const b = await s.backend(ip, 8080);
    b.status.set("/deep", 503);
    await s.pod("p", [ip], { app: "x" });
    await suite.admin.createSwh(s.namespace, "web", {
      selector: { app: "x" },
      ports: [{ name: "http", port: 80, targetPort: 8080 }],
      healthcheck: {
        initialDelaySeconds: 0,
        periodSeconds: 1,
        probes: [tcp(8080), http(8080, "/ping"), http(8080, "/deep")],
      },
    });
    const failing = await s.waitEndpoint(
      "failing on /deep",
      "web",
      8080,
      ip,
      (e) => e.reason === "HTTPStatus",
    );
    expect(failing.ready).toBe(false);
    expect((b.hits.get("/ping") ?? 0) + (b.hits.get("/deep") ?? 0)).toBeGreaterThan(0);
    b.status.set("/deep", 200);
    await s.waitEndpoint("ready once all pass", "web", 8080, ip, (e) => e.ready);
  });

  it("waits out the initial delay and honours success and failure thresholds", async () => {
    const s = await scenario("thresholds");
    const ip = `${s.net}.5`;
    const b = await s.backend(ip, 8080);
    await s.pod("p", [ip], { app: "x" });
    const podStart = Date.now();
    await suite.admin.createSwh(s.namespace, "web", {
      selector: { app: "x" },
      ports: [{ name: "http", port: 80, targetPort: 8080 }],
      healthcheck: {
        initialDelaySeconds: 3,
        periodSeconds: 1,
        probes: [http(8080, "/healthz", { successThreshold: 2, failureThreshold: 3 })],
      },
    });
    // Before any probe the endpoint is published, not ready, with the reason saying why.
    const early = await s.waitEndpoint("published before probing", "web", 8080, ip, () => true);
    expect(early).toMatchObject({ ready: false, reason: "NotProbedYet" });
    expect(b.hits.get("/healthz") ?? 0).toBe(0);

    await s.waitEndpoint("ready after two successes", "web", 8080, ip, (e) => e.ready);
    expect(b.hits.get("/healthz") ?? 0).toBeGreaterThanOrEqual(2);
    // The first probe cannot have come before the initial delay (a lower bound, not a timing measurement).
    expect(Date.now() - podStart).toBeGreaterThanOrEqual(3_000);

    b.status.set("/healthz", 500);
    const before = b.hits.get("/healthz") ?? 0;
    await s.waitEndpoint("withdrawn after three failures", "web", 8080, ip, (e) => !e.ready);
    expect((b.hits.get("/healthz") ?? 0) - before).toBeGreaterThanOrEqual(3);
  });

  it("publishes a terminating pod as not ready, serving as its probes say, terminating", async () => {
    const s = await scenario("terminating");
    const ip = `${s.net}.5`;
    const b = await s.backend(ip, 8080);
    await s.pod("p", [ip], { app: "x" });
    await suite.admin.createSwh(s.namespace, "web", {
      selector: { app: "x" },
      ports: [{ name: "http", port: 80, targetPort: 8080 }],
      healthcheck: { initialDelaySeconds: 0, periodSeconds: 1, probes: [http(8080)] },
    });
    await s.waitEndpoint("ready", "web", 8080, ip, (e) => e.ready);
    await markPodTerminating(suite.cluster.kubeConfig, s.namespace, "p");
    const terminating = await s.waitEndpoint("terminating", "web", 8080, ip, (e) => e.terminating);
    expect(terminating).toMatchObject({ ready: false, serving: true });
    b.status.set("/healthz", 503);
    await s.waitEndpoint("not serving once probes fail", "web", 8080, ip, (e) => e.terminating && !e.serving);
  });

  it("drains a pod by its annotation: not ready with reason Drained while its check passes, back at once without it", async () => {
    const s = await scenario("drain");
    const ip = `${s.net}.6`;
    const b = await s.backend(ip, 8080);
    await s.pod("p", [ip], { app: "x" });
    await suite.admin.createSwh(s.namespace, "web", {
      selector: { app: "x" },
      ports: [{ name: "http", port: 80, targetPort: 8080 }],
      healthcheck: { initialDelaySeconds: 0, periodSeconds: 1, probes: [http(8080)] },
    });
    await s.waitEndpoint("ready", "web", 8080, ip, (e) => e.ready);

    await annotatePod(suite.cluster.kubeConfig, s.namespace, "p", { [ANNOTATION_DRAIN]: "web" });
    const drained = await s.waitEndpoint("drained", "web", 8080, ip, (e) => !e.ready);
    expect(drained).toMatchObject({ ready: false, serving: true, terminating: false, reason: "Drained" });

    await annotatePod(suite.cluster.kubeConfig, s.namespace, "p", { [ANNOTATION_DRAIN]: null });
    // Its check kept passing throughout (the drain is no verdict): back with the next reconcile, no threshold
    // to cross again (the aggregation's own test shows the same probe states give a ready endpoint).
    await s.waitEndpoint("ready again", "web", 8080, ip, (e) => e.ready && e.reason === undefined);
    expect(b.hits.get("/healthz")).toBeGreaterThan(0);
  });

  it("opens a pod's readiness gate once its checks pass, closes it when they fail, and writes nothing while steady", async () => {
    const s = await scenario("gates");
    const ip = `${s.net}.7`;
    const b = await s.backend(ip, 8080);
    const gate = `${READINESS_GATE_PREFIX}web`;
    await s.pod("p", [ip], { app: "x" }, { readinessGates: [gate] });
    const kc = suite.cluster.kubeConfig;
    const condition = async () =>
      (
        await suite.admin.core.readNamespacedPodStatus({ name: "p", namespace: s.namespace })
      ).status?.conditions?.find((c) => c.type === gate);
    await suite.admin.createSwh(s.namespace, "web", {
      selector: { app: "x" },
      ports: [{ name: "http", port: 80, targetPort: 8080 }],
      healthcheck: { initialDelaySeconds: 0, periodSeconds: 1, probes: [http(8080)] },
    });
    // The kubelet holds Ready until the gate is True: the endpoint is published, not serving, meanwhile.
    const open = await waitFor("gate True", async () => {
      const c = await condition();
      return c?.status === "True" ? c : undefined;
    });
    expect(open).toMatchObject({ reason: "ChecksPassing" });
    expect(published(await s.slices(), "web", 8080, ip)).toMatchObject({ ready: false, serving: false });
    expect(await applyReadinessGates(kc, s.namespace, "p")).toBe(true);
    await s.waitEndpoint("ready once the pod is Ready", "web", 8080, ip, (e) => e.ready);

    // Steady: probes keep passing, the gate is not written again.
    const writes = () => metricValue(s.agent.registry, "swh_readiness_gate_writes_total");
    const before = await writes();
    const hits = b.hits.get("/healthz") ?? 0;
    await waitFor("three more checks", async () => (b.hits.get("/healthz") ?? 0) >= hits + 3);
    expect(await writes()).toBe(before);

    b.status.set("/healthz", 503);
    const closed = await waitFor("gate False", async () => {
      const c = await condition();
      return c?.status === "False" ? c : undefined;
    });
    expect(closed).toMatchObject({ reason: "HTTPStatus" });
    expect(closed?.message).toContain(`ServiceWithHealthchecks ${s.namespace}/web, port http`);
    expect(await applyReadinessGates(kc, s.namespace, "p")).toBe(false);
    await s.waitEndpoint("withdrawn", "web", 8080, ip, (e) => !e.ready);
    expect(await writes()).toBe(before + 1);
  });

  it("resolves named targetPorts per pod into separate slices", async () => {
    const s = await scenario("named");
    const [a, b] = [`${s.net}.5`, `${s.net}.6`];
    await s.backend(a, 8080);
    await s.backend(b, 8081);
    await s.pod("a", [a], { app: "x" }, { containerPorts: [{ name: "web", containerPort: 8080 }] });
    await s.pod("b", [b], { app: "x" }, { containerPorts: [{ name: "web", containerPort: 8081 }] });
    await suite.admin.createSwh(s.namespace, "web", {
      selector: { app: "x" },
      ports: [{ name: "http", port: 80, targetPort: "web" }],
      healthcheck: { initialDelaySeconds: 0, periodSeconds: 1, probes: [http("web")] },
    });
    const ea = await s.waitEndpoint("a ready on 8080", "web", 8080, a, (e) => e.ready);
    const eb = await s.waitEndpoint("b ready on 8081", "web", 8081, b, (e) => e.ready);
    expect(ea.slice).not.toBe(eb.slice);
  });

  it("probes PostgreSQL with a credentials Secret, and shows a missing Secret as the reason", async () => {
    const s = await suite.scenario("pg", { credentials: true });
    const ip = `${s.net}.5`;
    const pg = await startPostgres({ host: ip, users: [{ name: "probe", password: "probe-pw" }] });
    suite.cleanup(() => pg.stop());
    await s.pod("db", [ip], { app: "db" });
    await suite.admin.createSwh(s.namespace, "db", {
      selector: { app: "db" },
      ports: [{ name: "pg", port: 5432, targetPort: 5432 }],
      healthcheck: {
        initialDelaySeconds: 0,
        // The timeout may not exceed the period.
        periodSeconds: 2,
        probes: [
          {
            mode: "PostgreSQL",
            timeoutSeconds: 2,
            postgreSQL: { targetPort: 5432, dbName: "probe", authSecretName: "pg-creds" },
          },
        ],
      },
    });
    const missing = await s.waitEndpoint(
      "Secret missing",
      "db",
      5432,
      ip,
      (e) => e.reason === "CredentialsMissing",
    );
    expect(missing.ready).toBe(false);

    await suite.admin.core.createNamespacedSecret({
      namespace: s.namespace,
      body: postgresCredentialsSecret(
        { name: "pg-creds" },
        { user: "probe", password: "probe-pw", tlsMode: "VerifyCA", caCert: pg.caPem },
      ),
    });
    await s.waitEndpoint("ready with credentials", "db", 5432, ip, (e) => e.ready);

    await suite.admin.core.deleteNamespacedSecret({ namespace: s.namespace, name: "pg-creds" });
    await s.waitEndpoint(
      "withdrawn when the Secret goes",
      "db",
      5432,
      ip,
      (e) => e.reason === "CredentialsMissing",
    );
  });

  it("never touches pods or slices of other nodes, and renews its heartbeat", async () => {
    const s = await scenario("nodes");
    const [mine, theirs] = [`${s.net}.5`, `${s.net}.6`];
    await s.backend(mine, 8080);
    await s.backend(theirs, 8080);
    const other = `${s.node}-other`;
    await createNode(suite.cluster.kubeConfig, { name: other });
    await s.pod("mine", [mine], { app: "x" });
    await createPod(suite.cluster.kubeConfig, {
      name: "theirs",
      namespace: s.namespace,
      node: other,
      ips: [theirs],
      labels: { app: "x" },
    });
    await suite.admin.createSwh(s.namespace, "web", {
      selector: { app: "x" },
      ports: [{ name: "http", port: 80, targetPort: 8080 }],
      healthcheck: { initialDelaySeconds: 0, periodSeconds: 1, probes: [tcp(8080)] },
    });
    // A slice the other node's agent would own.
    const foreign: V1EndpointSlice = {
      metadata: {
        name: "web-other-node",
        labels: { [LABEL_SERVICE_NAME]: "web", [LABEL_MANAGED_BY]: MANAGED_BY, [LABEL_NODE]: other },
      },
      addressType: "IPv4",
      ports: [{ name: "http", port: 8080, protocol: "TCP" }],
      endpoints: [{ addresses: [theirs], conditions: { ready: false }, nodeName: other }],
    };
    const created = await suite.admin.discovery.createNamespacedEndpointSlice({
      namespace: s.namespace,
      body: foreign,
    });
    await s.waitEndpoint("own pod ready", "web", 8080, mine, (e) => e.ready);
    const after = (await s.slices()).find((x) => x.metadata?.name === "web-other-node");
    expect(after?.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
    const own = await suite.admin.slices(s.namespace, s.node);
    expect(own.flatMap((x) => x.endpoints ?? []).flatMap((e) => e.addresses)).toEqual([mine]);

    const leases = suite.cluster.kubeConfig.makeApiClient(CoordinationV1Api);
    const lease = await waitFor("heartbeat lease", async () =>
      leases
        .readNamespacedLease({ namespace: INSTALL_NAMESPACE, name: agentLeaseName(s.node) })
        .catch(() => undefined),
    );
    expect(lease.spec?.holderIdentity).toBe(s.node);
    await waitFor("heartbeat renewed", async () => {
      const again = await leases.readNamespacedLease({
        namespace: INSTALL_NAMESPACE,
        name: agentLeaseName(s.node),
      });
      return again.metadata?.resourceVersion !== lease.metadata?.resourceVersion;
    });
    expect(await metricValue(s.agent.registry, "swh_slice_writes_total", { result: "error" })).toBe(0);
  });
});
