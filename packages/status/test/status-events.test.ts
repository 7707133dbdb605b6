import type { Condition } from "@swh/crd-types";
import { CONDITION_REASONS } from "@swh/crd-types";
import { describe, expect, it } from "vitest";
import { statusEvents } from "../src/index.js";

const INVALID_SPEC_REASON = CONDITION_REASONS.ready.invalidSpec;
const RECONCILE_FAILED_REASON = CONDITION_REASONS.reconciled.reconcileFailed;

const at = "2026-12-02T10:00:00Z";
const condition = (type: string, status: Condition["status"], reason: string, message = "m"): Condition => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: at,
});

describe("statusEvents", () => {
  it("records one Event per condition whose status changed: Normal to True, Warning otherwise", () => {
    const previous = [
      condition("Ready", "True", "EndpointsReady"),
      condition("ServiceReady", "True", "Synced"),
      condition("ChildServiceReady", "True", "Synced"),
    ];
    const next = [
      condition("Ready", "False", "EndpointsNotReady", "1/2 endpoints ready"),
      condition("ServiceReady", "False", "ServiceWriteFailed", "denied"),
      condition("ChildServiceReady", "False", "ServiceWriteFailed", "denied"),
    ];
    expect(statusEvents(previous, { conditions: next })).toEqual([
      { type: "Warning", reason: "EndpointsNotReady", message: "Ready is False: 1/2 endpoints ready" },
      { type: "Warning", reason: "ServiceWriteFailed", message: "ServiceReady is False: denied" },
    ]);
    expect(statusEvents(next, { conditions: previous })).toEqual([
      { type: "Normal", reason: "EndpointsReady", message: "Ready is True: m" },
      { type: "Normal", reason: "Synced", message: "ServiceReady is True: m" },
    ]);
  });

  it("records nothing for a new SWH's first conditions or a reason change alone", () => {
    expect(statusEvents(undefined, { conditions: [condition("Ready", "False", "NoEndpoints")] })).toEqual([]);
    expect(
      statusEvents([condition("Ready", "False", "NoEndpoints")], {
        conditions: [condition("Ready", "False", "EndpointsNotReady")],
      }),
    ).toEqual([]);
  });

  it("warns about an invalid spec and a failed reconcile every time such a status is written", () => {
    const status = {
      conditions: [
        condition("Ready", "False", INVALID_SPEC_REASON, "spec.ports[0].port: must be a number"),
        condition("Reconciled", "False", RECONCILE_FAILED_REASON, "failed 16 times"),
      ],
    };
    expect(statusEvents(undefined, status)).toEqual([
      { type: "Warning", reason: INVALID_SPEC_REASON, message: "spec.ports[0].port: must be a number" },
      { type: "Warning", reason: RECONCILE_FAILED_REASON, message: "failed 16 times" },
    ]);
  });
});
