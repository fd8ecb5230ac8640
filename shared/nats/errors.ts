// What a NATS failure means, decided from the client's error classes and JetStream's API error codes, never
// from the words of a message. nats-core throws TimeoutError, RequestError (its `cause` says why: a
// NoRespondersError, a PermissionViolationError, or none when the connection went away under the request),
// ClosedConnectionError, DrainingConnectionError and ConnectionError; JetStream answers JetStreamApiError
// with `code` (the server's err_code, e.g. 10071) and `status` (the HTTP-like code, e.g. 404, 503), and
// turns a request nobody answered into JetStreamNotEnabled with the RequestError as its cause (so causes are
// followed).
import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream";
import {
  AuthorizationError,
  ClosedConnectionError,
  ConnectionError,
  DrainingConnectionError,
  NoRespondersError,
  PermissionViolationError,
  RequestError,
  TimeoutError,
} from "@nats-io/transport-node";

/** The error and its causes, outermost first (bounded: a cycle of causes cannot loop). */
function chain(err: unknown): unknown[] {
  const out: unknown[] = [];
  let e: unknown = err;
  while (e !== undefined && e !== null && out.length < 8 && !out.includes(e)) {
    out.push(e);
    e = e instanceof Error ? e.cause : undefined;
  }
  return out;
}

const apiCode = (err: unknown): number | null => (err instanceof JetStreamApiError ? err.code : null);

/** A compare-and-set lost: a KV create on an existing key, an update or publish on a stale revision. */
/** The server refused this connection's credentials (Authorization Violation, an unknown nkey, a bad signature). */
export function isAuthorizationRefused(err: unknown): boolean {
  return chain(err).some((e) => e instanceof AuthorizationError);
}

export function isCasConflict(err: unknown): boolean {
  const code = apiCode(err);
  return code === JetStreamApiCodes.StreamWrongLastSequence || code === JetStreamApiCodes.StreamWrongLastSequenceUnknown;
}

const NOT_FOUND_CODES: readonly number[] = [JetStreamApiCodes.StreamNotFound, JetStreamApiCodes.ConsumerNotFound, JetStreamApiCodes.NoMessageFound];

const NO_PEERS_FOR_PLACEMENT = 10005;

/**
 * JetStream found no servers to place a stream's replicas on (err_code 10005, JSClusterNoPeersErrF). While a
 * cluster forms, its meta leader is elected before it knows every peer, so an R3 stream created at that moment
 * is refused; moments later it is placed. (With too few servers for the replica count it never is.)
 */
export function isNoPlacement(err: unknown): boolean {
  return chain(err).some((e) => apiCode(e) === NO_PEERS_FOR_PLACEMENT);
}

/** JetStream has no such stream, consumer or stored message. */
export function isNotFound(err: unknown): boolean {
  const code = apiCode(err);
  return code !== null && NOT_FOUND_CODES.includes(code);
}

/** Nobody subscribes to the subject: no service or agent listens, or no stream takes the subject. */
export function isNoResponders(err: unknown): boolean {
  return chain(err).some((e) => e instanceof NoRespondersError);
}

/** The request got no answer in time (the far side may still have acted on it). */
export function isTimeout(err: unknown): boolean {
  return chain(err).some((e) => e instanceof TimeoutError);
}

/** The server refused a publish or subscription to this client's user: retrying will not change it. */
export function isPermissionViolation(err: unknown): boolean {
  return chain(err).some((e) => e instanceof PermissionViolationError);
}

/**
 * The bus could not carry the operation: no answer in time, nobody listening, the connection closed,
 * draining or lost under the request, or JetStream answering 503. Permission and authorization refusals are
 * not unavailability (retrying will not help).
 */
export function isUnavailable(err: unknown): boolean {
  const all = chain(err);
  if (all.some((e) => e instanceof PermissionViolationError || e instanceof AuthorizationError)) return false;
  return all.some(
    (e) =>
      e instanceof TimeoutError ||
      e instanceof NoRespondersError ||
      e instanceof ClosedConnectionError ||
      e instanceof DrainingConnectionError ||
      e instanceof ConnectionError ||
      e instanceof RequestError ||
      (e instanceof JetStreamApiError && e.status === 503),
  );
}

/**
 * Logs a NATS call that failed and will be tried again: a bus unavailable for a while (a leader election, a node
 * restarting: routine in a cluster) at info with its message only, since its stack says nothing; anything else at
 * warn with the whole error.
 */
export function logRetriedFailure(log: { info(o: object, m: string): void; warn(o: object, m: string): void }, err: unknown, msg: string, fields: object = {}): void {
  if (isUnavailable(err)) log.info({ ...fields, reason: err instanceof Error ? err.message : String(err) }, msg);
  else log.warn({ ...fields, err }, msg);
}
