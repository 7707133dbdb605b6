/**
 * Typed builders for manifests: `serviceWithHealthchecks()` and the probe helpers `tcpProbe()`, `httpProbe()`,
 * `postgresProbe()`, `grpcProbe()`. They only assemble plain objects (no defaults added, nothing validated), so what they return
 * is exactly what a user would have written by hand.
 */
import { API_VERSION, KIND } from "./constants.js";
import type {
  GrpcProbeSpec,
  HttpProbeSpec,
  IntOrString,
  ObjectMeta,
  PostgresProbeSpec,
  ProbeSpec,
  ServiceWithHealthchecks,
  ServiceWithHealthchecksSpec,
  TcpProbeSpec,
} from "./types.js";

/** Settings every probe mode shares. */
export type ProbeTiming = Pick<ProbeSpec, "timeoutSeconds" | "successThreshold" | "failureThreshold">;

/** Metadata a builder accepts: a name, and optionally namespace, labels and annotations. */
export type ManifestMeta = { name: string } & Pick<ObjectMeta, "namespace" | "labels" | "annotations">;

/** Returns a ServiceWithHealthchecks manifest with the given metadata and spec (copied, not referenced). */
export function serviceWithHealthchecks(
  meta: ManifestMeta,
  spec: ServiceWithHealthchecksSpec,
): ServiceWithHealthchecks {
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    metadata: structuredClone(meta),
    spec: structuredClone(spec),
  };
}

function splitTiming<T extends ProbeTiming>(
  opts: T,
): { timing: ProbeTiming; rest: Omit<T, keyof ProbeTiming> } {
  const { timeoutSeconds, successThreshold, failureThreshold, ...rest } = opts;
  const timing: ProbeTiming = {
    ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }),
    ...(successThreshold === undefined ? {} : { successThreshold }),
    ...(failureThreshold === undefined ? {} : { failureThreshold }),
  };
  return { timing, rest };
}

/** Returns a TCP probe of `targetPort` (a number or a container port name). */
export function tcpProbe(
  targetPort: IntOrString,
  opts: Omit<TcpProbeSpec, "targetPort"> & ProbeTiming = {},
): ProbeSpec {
  const { timing, rest } = splitTiming(opts);
  return { mode: "TCP", ...timing, tcp: { targetPort, ...rest } };
}

/** Returns an HTTP(S) probe of `targetPort`; `opts` holds the HTTP settings and the probe timing. */
export function httpProbe(
  targetPort: IntOrString,
  opts: Omit<HttpProbeSpec, "targetPort"> & ProbeTiming = {},
): ProbeSpec {
  const { timing, rest } = splitTiming(opts);
  return { mode: "HTTP", ...timing, http: { targetPort, ...structuredClone(rest) } };
}

/** Returns a PostgreSQL probe of `targetPort`; `opts` holds dbName, query, authSecretName and the timing. */
export function postgresProbe(
  targetPort: IntOrString,
  opts: Omit<PostgresProbeSpec, "targetPort"> & ProbeTiming = {},
): ProbeSpec {
  const { timing, rest } = splitTiming(opts);
  return { mode: "PostgreSQL", ...timing, postgreSQL: { targetPort, ...rest } };
}

/** Returns a gRPC health probe of `targetPort`; `opts` holds service, host, the TLS settings and the timing. */
export function grpcProbe(
  targetPort: IntOrString,
  opts: Omit<GrpcProbeSpec, "targetPort"> & ProbeTiming = {},
): ProbeSpec {
  const { timing, rest } = splitTiming(opts);
  return { mode: "GRPC", ...timing, grpc: { targetPort, ...rest } };
}
