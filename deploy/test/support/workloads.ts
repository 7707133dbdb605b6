/** Readers of the rendered controller Deployment and agent DaemonSet the chart tests share. */
import type { RenderedObject } from "./tools.ts";

/** A container of a rendered pod template, as plain data. */
export interface RenderedContainer {
  name: string;
  image: string;
  env?: { name: string; value?: string; valueFrom?: unknown }[];
  // biome-ignore lint/suspicious/noExplicitAny: rendered manifests are arbitrary YAML; tests index into them
  [field: string]: any;
}

/** The pod spec of a workload's template. */
export function podSpec(workload: RenderedObject) {
  return workload.spec.template.spec;
}

/** The container `name` of a workload; throws naming the workload when it has none. */
export function container(workload: RenderedObject, name: string): RenderedContainer {
  const found = podSpec(workload).containers.find((c: { name: string }) => c.name === name);
  if (!found) throw new Error(`${workload.kind} ${workload.metadata.name} has no container ${name}`);
  return found;
}

/** The environment variable `name` of a container, if set. */
export function envOf(c: RenderedContainer, name: string) {
  return c.env?.find((e) => e.name === name);
}
