/**
 * The printer-column texts of an SWH, written the way `kubectl get service` shows a Service, so `kubectl get swh`
 * reads the same: External-IP (`<none>`, `<pending>` or the addresses) and Ports (`80/TCP,53:30053/UDP`).
 */
import type { V1Service } from "@kubernetes/client-node";

/** The Ports column: `port[:nodePort]/protocol`, comma-separated; `<none>` without ports. */
export function portsSummary(service: Readonly<V1Service> | undefined): string {
  const ports = service?.spec?.ports ?? [];
  if (ports.length === 0) return "<none>";
  return ports.map((p) => `${p.port}${p.nodePort ? `:${p.nodePort}` : ""}/${p.protocol ?? "TCP"}`).join(",");
}

/** The External-IP column: external IPs and load-balancer ingress; `<pending>` for a LoadBalancer without. */
export function externalIPSummary(service: Readonly<V1Service> | undefined): string {
  const spec = service?.spec;
  if (spec === undefined) return "<none>";
  if (spec.type === "ExternalName") return spec.externalName ?? "<none>";
  const addresses = [...(spec.externalIPs ?? [])];
  if (spec.type === "LoadBalancer") {
    for (const ingress of service?.status?.loadBalancer?.ingress ?? []) {
      const address = ingress.ip ?? ingress.hostname;
      if (address) addresses.push(address);
    }
    if (addresses.length === 0) return "<pending>";
  }
  return addresses.length === 0 ? "<none>" : addresses.join(",");
}
