/**
 * An opt-in kube-apiserver audit log of what ServiceAccounts do (`startControlPlane({ auditLog })`): level
 * Metadata (who, verb, which object, response code; never a body), and only for the ServiceAccounts of the
 * namespaces asked for, so it stays cheap. Tests read it to measure which permissions an app really uses.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** What {@link startControlPlane} audits: the requests of every ServiceAccount of these namespaces. */
export interface AuditLogOptions {
  serviceAccountNamespaces: readonly string[];
}

/** The fields of one audit event (audit.k8s.io/v1, level Metadata) that tests use. */
export interface AuditEvent {
  stage: string;
  verb: string;
  requestURI: string;
  user: { username: string };
  objectRef?: {
    apiGroup?: string;
    resource?: string;
    subresource?: string;
    namespace?: string;
    name?: string;
  };
  responseStatus?: { code?: number };
}

/** kube-apiserver flags writing the audit log to `<workDir>/audit.log`, and that path. */
export function auditLogArgs(workDir: string, opts: AuditLogOptions): { args: string[]; path: string } {
  if (opts.serviceAccountNamespaces.length === 0) {
    throw new Error("auditLog.serviceAccountNamespaces: name at least one namespace");
  }
  const policyPath = join(workDir, "audit-policy.json");
  const path = join(workDir, "audit.log");
  const policy = {
    apiVersion: "audit.k8s.io/v1",
    kind: "Policy",
    // One event per request once it completes (watches: also when the response starts).
    omitStages: ["RequestReceived"],
    rules: [
      {
        level: "Metadata",
        userGroups: opts.serviceAccountNamespaces.map((ns) => `system:serviceaccounts:${ns}`),
      },
      { level: "None" },
    ],
  };
  writeFileSync(policyPath, JSON.stringify(policy));
  return {
    args: [`--audit-policy-file=${policyPath}`, `--audit-log-path=${path}`, "--audit-log-format=json"],
    path,
  };
}

/** Every event of the audit log at `path` so far (none when the file does not exist yet). */
export function readAuditLog(path: string): AuditEvent[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as AuditEvent);
}
