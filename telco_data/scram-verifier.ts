/**
 * The SCRAM-SHA-256 verifier PostgreSQL stores for a password, computed here so that CREATE/ALTER
 * ROLE ... PASSWORD sends the verifier, never the password: statements can end up in the server
 * log (log_statement = 'ddl' logs every ALTER ROLE) and in pg_stat_activity. psql's \password does
 * the same. Format and steps: RFC 5802 and PostgreSQL's scram_build_secret().
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';

/** PostgreSQL's default (scram_iterations). */
const ITERATIONS = 4096;

/** RFC 3454 table B.1, "commonly mapped to nothing": soft hyphen, joiners, variation selectors. */
const MAPPED_TO_NOTHING = new Set([
  0xad,
  0x34f,
  0x1806,
  0x180b,
  0x180c,
  0x180d,
  0x200c,
  0x200d,
  0x2060,
  0xfeff,
  ...Array.from({ length: 16 }, (_, index) => 0xfe00 + index),
]);

/**
 * SASLprep as node-postgres and libpq apply it before hashing (RFC 4013's mapping and NFKC), so a
 * password with non-ASCII characters logs in from either client.
 */
function saslprep(password: string): string {
  return [...password.replace(/[\u00A0\u1680\u2000-\u200B\u202F\u205F\u3000]/g, ' ')]
    .filter((character) => !MAPPED_TO_NOTHING.has(character.codePointAt(0) ?? 0))
    .join('')
    .normalize('NFKC');
}

/** `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>`, all base64. */
export function scramSha256Verifier(password: string, salt: Buffer = randomBytes(16), iterations = ITERATIONS): string {
  const salted = pbkdf2Sync(saslprep(password), salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest('base64');
  const serverKey = createHmac('sha256', salted).update('Server Key').digest('base64');
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey}:${serverKey}`;
}

/** Whether `verifier` (as in pg_authid.rolpassword) was made from `password`. */
export function matchesScramVerifier(verifier: string, password: string): boolean {
  const match = /^SCRAM-SHA-256\$(\d+):([^$]+)\$/.exec(verifier);
  if (!match?.[1] || !match[2]) return false;
  return scramSha256Verifier(password, Buffer.from(match[2], 'base64'), Number(match[1])) === verifier;
}
