// A bucket's identity: a random number kept in its stream's description, set when the bucket is provisioned
// (ensureBucket). A bucket deleted and created again, or the same name on a new NATS store, has another, so a local
// copy (a read model's stored checkpoint, a live copy) can tell it is not the bucket it copied even when the new
// head is at or past the revisions it applied. The stream's creation time cannot serve: nats-server 2.9 changes it
// after a stream's config is updated and the server restarts. The description is config: it lasts, and it is read
// with the head (kv.status()), so checking it costs nothing more; no key in the bucket is reserved for it.
import { randomInt } from "node:crypto";

const PREFIX = "inquest bucket, identity ";

/** The identity in a stream's config; null for a bucket not provisioned by ensureBucket (or before identities). */
export function identityOf(config: { description?: string }): number | null {
  const d = config.description ?? "";
  if (!d.startsWith(PREFIX)) return null;
  const n = Number(d.slice(PREFIX.length));
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

export function identityDescription(identity: number): string {
  return `${PREFIX}${identity}`;
}

/** A new bucket's identity. */
export function newIdentity(): number {
  return randomInt(1, 2 ** 47);
}

/**
 * The identity given to a bucket made before identities: the time its stream was created, so replicas that give
 * it one at the same moment give the same one (its copies are not started over for nothing).
 */
export function legacyIdentity(created: string): number {
  const ms = Date.parse(created);
  return Number.isSafeInteger(ms) && ms > 0 ? ms : newIdentity();
}
