/**
 * `kubectl exec` for tests on the real node: runs a command in a pod's container through the API server (which
 * asks the kubelet) and resolves with its stdout once it exits 0.
 */
import { Writable } from "node:stream";
import { Exec, type KubeConfig, type V1Status } from "@kubernetes/client-node";

const EXEC_TIMEOUT_MS = 20_000;

/** Runs `command` in `namespace/pod` (container `container`); rejects with stderr and the status when it fails. */
export async function execInPod(
  kubeConfig: KubeConfig,
  target: { namespace: string; pod: string; container: string },
  command: readonly string[],
): Promise<string> {
  let stdout = "";
  let stderr = "";
  const sink = (append: (text: string) => void) =>
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        append(chunk.toString("utf8"));
        done();
      },
    });
  const what = `exec ${command.join(" ")} in ${target.namespace}/${target.pod}`;
  const status = await new Promise<V1Status>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${what}: no status after ${EXEC_TIMEOUT_MS} ms`)),
      EXEC_TIMEOUT_MS,
    );
    new Exec(kubeConfig)
      .exec(
        target.namespace,
        target.pod,
        target.container,
        [...command],
        sink((t) => {
          stdout += t;
        }),
        sink((t) => {
          stderr += t;
        }),
        null,
        false,
        (s) => {
          clearTimeout(timer);
          resolve(s);
        },
      )
      .catch((error: unknown) => {
        clearTimeout(timer);
        reject(error);
      });
  });
  if (status.status !== "Success") {
    throw new Error(`${what}: ${status.message ?? status.reason ?? "failed"}; stderr: ${stderr.trim()}`);
  }
  return stdout;
}
