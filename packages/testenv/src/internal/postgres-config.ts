/** A login role of a test PostgreSQL server: a password user, or a client-certificate-only user. */
export interface PostgresUser {
  name: string;
  password?: string;
  certOnly?: boolean;
}

/** Name of the role pg_basebackup connects as to stream from a primary. */
export const REPLICATION_USER = "swh_replicator";

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Checks the users of `startPostgres` and throws naming the bad field: names must be plain lowercase
 * SQL identifiers (they go into SQL and pg_hba.conf unquoted), a password user needs a password, a
 * cert-only user must not have one.
 */
export function validateUsers(users: readonly PostgresUser[]): void {
  const seen = new Set<string>();
  for (const [i, user] of users.entries()) {
    const where = `startPostgres: users[${i}]`;
    if (!IDENTIFIER.test(user.name)) throw new Error(`${where}.name "${user.name}" must match ${IDENTIFIER}`);
    if (user.name === "postgres" || user.name === REPLICATION_USER) {
      throw new Error(`${where}.name "${user.name}" is reserved`);
    }
    if (seen.has(user.name)) throw new Error(`${where}.name "${user.name}" is listed twice`);
    seen.add(user.name);
    if (user.certOnly && user.password !== undefined) {
      throw new Error(`${where}.password must not be set for a certOnly user`);
    }
    if (!user.certOnly && !user.password) throw new Error(`${where}.password is required (or set certOnly)`);
  }
}

/**
 * The pg_hba.conf text: the superuser over the unix socket without a password (test setup only);
 * cert-only users over TLS with a client certificate whose CN is the user name (`cert` implies
 * verify-full); replication and password users with SCRAM over TLS, and over plain TCP too so a
 * client with TLS disabled can be tested.
 */
export function renderPgHba(users: readonly PostgresUser[]): string {
  const lines = ["# TYPE  DATABASE  USER  ADDRESS  METHOD", "local all postgres trust"];
  for (const user of users.filter((u) => u.certOnly)) {
    lines.push(`hostssl all ${user.name} all cert`);
    lines.push(`hostnossl all ${user.name} all reject`);
  }
  lines.push(`hostssl replication ${REPLICATION_USER} all scram-sha-256`);
  lines.push("hostssl all all all scram-sha-256");
  lines.push("hostnossl all all all scram-sha-256");
  return `${lines.join("\n")}\n`;
}

/** SQL string literal (single quotes doubled). */
export function sqlLiteral(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}
