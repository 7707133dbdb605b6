/**
 * Fairness between tenants (issue 16, item 5; ADR 0016), with the agent in-process as its ServiceAccount against
 * the real API server: one namespace's probes that hang until their timeout cannot delay another namespace's
 * probes on the same node.
 */
import { createPod, waitFor } from "@swh/testenv";
import { describe, expect, it } from "vitest";
import { metricValue, published, startSilentServer } from "./support/harness.js";
import { agentSuite, http } from "./support/suite.js";

const suite = agentSuite(120);

/** Namespace A: 5 SWHs × 32 HTTP probes on distinct paths, over 4 pods, with the longest timeout allowed. */
const HANGING_PODS = 4;
const SWHS = 5;
const PROBES = 32;
const A_PERIOD_SECONDS = 60;
/** Namespace B's period: it must be published ready within two of them. */
const B_PERIOD_SECONDS = 5;

describe("fairness between namespaces", () => {
  it(`publishes a new pod of another namespace within two of its periods while ${HANGING_PODS * SWHS * PROBES} probes of one namespace hang`, async () => {
    const a = await suite.scenario("fair-a");
    const ips = Array.from({ length: HANGING_PODS }, (_, i) => `${a.net}.${i + 1}`);
    const silent = await Promise.all(ips.map((ip) => startSilentServer(ip, 8080)));
    suite.cleanup(() => Promise.all(silent.map((s) => s.close())));
    for (const [i, ip] of ips.entries()) await a.pod(`hang-${i}`, [ip], { app: "hang" });
    for (let s = 0; s < SWHS; s++) {
      await suite.admin.createSwh(a.namespace, `hang-${s}`, {
        selector: { app: "hang" },
        ports: [{ name: "http", port: 80, targetPort: 8080 }],
        healthcheck: {
          initialDelaySeconds: 0,
          periodSeconds: A_PERIOD_SECONDS,
          // The largest timeout the schema allows: equal to the period.
          probes: Array.from({ length: PROBES }, (_, p) =>
            http(8080, `/s${s}/p${p}`, { timeoutSeconds: A_PERIOD_SECONDS }),
          ),
        },
      });
    }
    // Namespace A holds every slot it may have and has more probes due: it is saturated.
    await waitFor("namespace A's probes to wait for a slot", async () => {
      const waiting = await metricValue(a.agent.registry, "swh_probes_waiting");
      return waiting > 0 ? waiting : undefined;
    });
    const heldBefore = await metricValue(a.agent.registry, "swh_probes_running");

    const b = await suite.cluster.createNamespace("fair-b");
    const ipB = `${a.net}.100`;
    await a.backend(ipB, 8080);
    await suite.admin.createSwh(b, "web", {
      selector: { app: "web" },
      ports: [{ name: "http", port: 80, targetPort: 8080 }],
      healthcheck: { initialDelaySeconds: 0, periodSeconds: B_PERIOD_SECONDS, probes: [http(8080)] },
    });
    const createdAt = Date.now();
    await createPod(suite.cluster.kubeConfig, {
      name: "web-0",
      namespace: b,
      node: a.node,
      ips: [ipB],
      labels: { app: "web" },
    });
    const endpoint = await waitFor(
      `namespace B's new pod to be published ready within two periods (${2 * B_PERIOD_SECONDS} s)`,
      async () => {
        const e = published(await suite.admin.slices(b), "web", 8080, ipB);
        return e?.ready ? e : undefined;
      },
      { timeoutMs: 2 * B_PERIOD_SECONDS * 1000 },
    );
    const tookMs = Date.now() - createdAt;
    expect(endpoint).toMatchObject({ ready: true, nodeName: a.node });
    expect(tookMs).toBeLessThanOrEqual(2 * B_PERIOD_SECONDS * 1000);
    // Namespace A was still hanging meanwhile.
    const stillWaiting = await metricValue(a.agent.registry, "swh_probes_waiting");
    expect(stillWaiting).toBeGreaterThan(0);
    console.info(
      `fairness: B published ready after ${tookMs} ms (period ${B_PERIOD_SECONDS} s); A held ${heldBefore} ` +
        `probe slots, ${silent.reduce((n, s) => n + s.open, 0)} connections open, ${stillWaiting} probes waiting`,
    );
  });
});
