/**
 * Manifests written the way the original module's documentation writes them: two balancers on one VM (a web
 * HTTP check on 8080 and an SMTP TCP check on 2525) and a PostgreSQL read/write pair. They must be accepted
 * unchanged, so they are kept as YAML text, not built with this package's helpers.
 */
import { parseAllDocuments } from "yaml";

const TWO_BALANCERS_ON_ONE_VM = `
apiVersion: network.deckhouse.io/v1alpha1
kind: ServiceWithHealthchecks
metadata:
  name: web
spec:
  ports:
  - port: 80
    protocol: TCP
    targetPort: 8080
  selector:
    app: vm-web-and-mail
  healthcheck:
    probes:
    - mode: HTTP
      http:
        targetPort: 8080
        method: GET
        path: /
---
apiVersion: network.deckhouse.io/v1alpha1
kind: ServiceWithHealthchecks
metadata:
  name: smtp
spec:
  ports:
  - port: 25
    protocol: TCP
    targetPort: 2525
  selector:
    app: vm-web-and-mail
  healthcheck:
    probes:
    - mode: TCP
      tcp:
        targetPort: 2525
`;

const POSTGRES_READ_WRITE = `
apiVersion: v1
kind: Secret
metadata:
  name: cred-secret
type: network.deckhouse.io/postgresql-credentials
stringData:
  user: postgres
  password: example
---
apiVersion: network.deckhouse.io/v1alpha1
kind: ServiceWithHealthchecks
metadata:
  name: postgres-read
spec:
  ports:
  - port: 5432
    protocol: TCP
    targetPort: 5432
  selector:
    app: postgres
  healthcheck:
    initialDelaySeconds: 10
    periodSeconds: 10
    probes:
    - mode: PostgreSQL
      timeoutSeconds: 2
      successThreshold: 1
      failureThreshold: 3
      postgreSQL:
        targetPort: 5432
        dbName: postgres
        authSecretName: cred-secret
        query: "SELECT 1"
---
apiVersion: network.deckhouse.io/v1alpha1
kind: ServiceWithHealthchecks
metadata:
  name: postgres-write
spec:
  ports:
  - port: 5432
    protocol: TCP
    targetPort: 5432
  selector:
    app: postgres
  healthcheck:
    initialDelaySeconds: 10
    periodSeconds: 10
    probes:
    - mode: PostgreSQL
      timeoutSeconds: 2
      successThreshold: 1
      failureThreshold: 3
      postgreSQL:
        targetPort: 5432
        dbName: postgres
        authSecretName: cred-secret
        query: "SELECT NOT pg_is_in_recovery()"
`;

function parse(text: string): Record<string, unknown>[] {
  return parseAllDocuments(text).map((d) => d.toJS() as Record<string, unknown>);
}

/** The original product's examples; `objects` holds only the ServiceWithHealthchecks documents. */
export const ORIGINAL_MANIFESTS = [
  { name: "two balancers on one VM", yaml: TWO_BALANCERS_ON_ONE_VM },
  { name: "PostgreSQL read/write pair", yaml: POSTGRES_READ_WRITE },
].map((m) => ({
  ...m,
  all: parse(m.yaml),
  objects: parse(m.yaml).filter((o) => o.kind === "ServiceWithHealthchecks"),
}));
