import { createHash } from "node:crypto";
import { type DefaultedProbeSpec, type IntOrString, isProbeMode } from "@swh/crd-types";
import { describeValue } from "@swh/crd-types/internal";

const SUB_OBJECT_OF_MODE = { TCP: "tcp", HTTP: "http", PostgreSQL: "postgreSQL", GRPC: "grpc" } as const;

/**
 * The field holding a probe's mode-specific settings (`tcp`, `http`, `postgreSQL` or `grpc`); undefined for a
 * mode this version cannot run (a stored object is not re-validated when the schema changes).
 */
export function probeSubObjectKey(
  probe: DefaultedProbeSpec,
): "tcp" | "http" | "postgreSQL" | "grpc" | undefined {
  return isProbeMode(probe.mode) ? SUB_OBJECT_OF_MODE[probe.mode] : undefined;
}

/** A probe's targetPort, or undefined when its mode is unknown or the sub-object matching it is missing. */
export function probeTargetPort(probe: DefaultedProbeSpec): IntOrString | undefined {
  const key = probeSubObjectKey(probe);
  return key === undefined ? undefined : probe[key]?.targetPort;
}

/**
 * Short human description of a probe for status and logs, e.g. `HTTP :8080 /healthz`; a probe of an unknown
 * mode is described by its mode alone (bounded), e.g. `UDP`. Never includes secrets.
 */
export function describeProbe(probe: DefaultedProbeSpec, port: number | string): string {
  if (!isProbeMode(probe.mode)) return describeValue(probe.mode);
  if (probe.mode === "HTTP") {
    const scheme = probe.http?.scheme === "HTTPS" ? "HTTPS" : "HTTP";
    return `${scheme} :${port} ${probe.http?.path ?? "/"}`;
  }
  if (probe.mode === "PostgreSQL") {
    const db = probe.postgreSQL?.dbName;
    return db === undefined ? `PostgreSQL :${port}` : `PostgreSQL :${port} ${db}`;
  }
  if (probe.mode === "GRPC") {
    // The service name is the user's own identifier (no secret); bounded like every stored value.
    const service = probe.grpc?.service;
    return service ? `GRPC :${port} ${describeValue(service)}` : `GRPC :${port}`;
  }
  return `TCP :${port}`;
}

/**
 * Returns the stable id of a probe target: two SWHs probing the same address with the same canonical config get
 * the same id and so share one prober. The config covers everything that changes what is probed or how its state
 * evolves: mode, resolved port, mode settings, timeout, thresholds, period and initial delay (sharing a target
 * across different delays or periods — adaptive ones included — would let one SWH's settings change another's
 * results, SPEC §3.2). The namespace is part of it because a PostgreSQL auth Secret name is namespace-relative. The id is a readable prefix
 * plus a hash, so header values and queries never appear in logs or metric labels.
 */
export function probeTargetId(input: {
  address: string;
  port: number;
  namespace: string;
  probe: DefaultedProbeSpec;
  initialDelaySeconds: number;
  periodSeconds: number;
  transitionPeriodSeconds?: number;
  downPeriodSeconds?: number;
}): string {
  const { probe } = input;
  const fields: unknown[] = [
    input.address,
    input.port,
    input.namespace,
    probe.mode,
    canonicalSettings(probe),
    probe.timeoutSeconds,
    probe.successThreshold,
    probe.failureThreshold,
    input.periodSeconds,
    input.initialDelaySeconds,
  ];
  // Only when set, so that targets of SWHs without adaptive periods keep the ids they had (restart seeding).
  if (input.transitionPeriodSeconds !== undefined || input.downPeriodSeconds !== undefined)
    fields.push(input.transitionPeriodSeconds ?? null, input.downPeriodSeconds ?? null);
  const canonical = JSON.stringify(fields);
  const hash = createHash("sha256").update(canonical).digest("hex").slice(0, 16);
  return `${probe.mode.toLowerCase()}/${input.address}/${input.port}/${hash}`;
}

/** Canonical JSON of a probe's mode settings, memoized per (immutable) probe object: computed once, not per pod. */
const settingsCache = new WeakMap<DefaultedProbeSpec, string>();
function canonicalSettings(probe: DefaultedProbeSpec): string {
  let text = settingsCache.get(probe);
  if (text === undefined) {
    const key = probeSubObjectKey(probe);
    text = canonicalJson(key === undefined ? null : normalizeSettings(key, probe[key]));
    settingsCache.set(probe, text);
  }
  return text;
}

/** Drops the targetPort (replaced by the resolved port) and treats an empty accepted-code list as missing. */
function normalizeSettings(key: string, settings: object | undefined): unknown {
  if (settings === undefined) return null;
  const { targetPort: _resolvedSeparately, ...rest } = settings as Record<string, unknown>;
  if (key === "http") {
    const codes = rest.code as number[] | undefined;
    if (codes === undefined || codes.length === 0) delete rest.code;
    else rest.code = [...new Set(codes)].sort((a, b) => a - b);
  }
  return rest;
}

/**
 * JSON with object keys sorted and undefined members dropped (`null`, `[]` and `{}` kept): equal configs give equal
 * strings. The controller compares API objects with its own `sameJson`, which also treats `null`, `[]` and `{}` as
 * absent, as the API server does.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const member = (value as Record<string, unknown>)[key];
      if (member !== undefined) out[key] = sortKeys(member);
    }
    return out;
  }
  return value;
}
