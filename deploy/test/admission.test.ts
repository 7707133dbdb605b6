import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  ANNOTATION_NODE_NAME,
  GROUP,
  KIND,
  LABEL_MANAGED_BY,
  LABEL_NODE,
  LABEL_SERVICE_NAME,
  MANAGED_BY,
  READINESS_GATE_PREFIX,
} from "@swh/crd-types";
import { AGENT_LEASE_PREFIX, CONTROLLER_LEADER_LEASE } from "@swh/crd-types/internal";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { CHART_DIR, find, helmTemplate, type RenderedObject } from "./support/tools.ts";

const POLICIES = ["swh-agent-endpointslices", "swh-agent-leases", "swh-agent-pod-status"];

/** Every CEL expression and message of a policy, as one text to search. */
function celText(policy: RenderedObject): string {
  const spec = policy.spec;
  return JSON.stringify([spec.matchConditions, spec.variables, spec.validations]);
}

describe("agent admission policies (ADR 0018)", () => {
  const objects = helmTemplate();

  it.each(POLICIES)("%s fails closed and binds with Deny to the agent's ServiceAccount only", (name) => {
    const policy = find(objects, "ValidatingAdmissionPolicy", name);
    expect(policy.apiVersion).toBe("admissionregistration.k8s.io/v1");
    expect(policy.spec.failurePolicy).toBe("Fail");
    expect(policy.spec.matchConditions).toEqual([
      {
        name: "is-agent",
        expression: 'request.userInfo.username == "system:serviceaccount:swh-system:swh-agent"',
      },
    ]);
    const operations = policy.spec.matchConstraints.resourceRules.flatMap(
      (r: { operations: string[] }) => r.operations,
    );
    expect(operations.sort()).toEqual(["CREATE", "DELETE", "UPDATE"]);
    const binding = find(objects, "ValidatingAdmissionPolicyBinding", name);
    expect(binding.spec).toEqual({ policyName: name, validationActions: ["Deny"] });
  });

  it("uses the label, annotation and Lease names the apps write (from @swh/crd-types)", () => {
    const slices = celText(find(objects, "ValidatingAdmissionPolicy", "swh-agent-endpointslices"));
    for (const value of [
      LABEL_MANAGED_BY,
      MANAGED_BY,
      LABEL_SERVICE_NAME,
      LABEL_NODE,
      ANNOTATION_NODE_NAME,
      KIND,
    ]) {
      expect(slices).toContain(`'${value}'`);
    }
    expect(slices).toContain(`startsWith('${GROUP}/')`);
    const leases = celText(find(objects, "ValidatingAdmissionPolicy", "swh-agent-leases"));
    expect(leases).toContain(`'${AGENT_LEASE_PREFIX}' + variables.node`);
    expect(leases).toContain(`startsWith('${AGENT_LEASE_PREFIX}')`);
    const podStatus = celText(find(objects, "ValidatingAdmissionPolicy", "swh-agent-pod-status"));
    expect(podStatus).toContain(`startsWith('${READINESS_GATE_PREFIX}')`);
    // The prefix check is what keeps the controller's leader Lease out of an agent's reach.
    expect(CONTROLLER_LEADER_LEASE.startsWith(AGENT_LEASE_PREFIX)).toBe(false);
  });

  it("follows the release namespace and name prefix to the agent's ServiceAccount", () => {
    const custom = helmTemplate({ namespace: "lb-system", set: ["namePrefix=lb"] });
    for (const name of ["lb-agent-endpointslices", "lb-agent-leases", "lb-agent-pod-status"]) {
      const policy = find(custom, "ValidatingAdmissionPolicy", name);
      expect(policy.spec.matchConditions[0].expression).toBe(
        'request.userInfo.username == "system:serviceaccount:lb-system:lb-agent"',
      );
      expect(find(custom, "ValidatingAdmissionPolicyBinding", name).spec.policyName).toBe(name);
    }
  });

  it("requires Kubernetes 1.30 by its admissionregistration.k8s.io/v1 policies, not a kubeVersion offline rendering fails", () => {
    // Only API servers from 1.30 (which also put the node in pod-bound tokens) serve these kinds in v1: an older
    // one refuses the install. A kubeVersion would refuse `helm template` without a cluster (ADR 0041).
    const kinds = ["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"];
    const policies = objects.filter((o) => kinds.includes(o.kind));
    expect(policies.length).toBeGreaterThanOrEqual(6);
    for (const policy of policies) expect(policy.apiVersion).toBe("admissionregistration.k8s.io/v1");
    const chart = parse(readFileSync(join(CHART_DIR, "Chart.yaml"), "utf8"));
    expect(chart.kubeVersion).toBeUndefined();
  });
});
