// Fewer, larger socket writes. nats-core 3.4.0 buffers each command (publish, ack, request) and flushes the buffer
// in a microtask after the first one. A busy service issues its commands from many separate async continuations
// (each job's publish, each message's ack), and microtasks run between them, so almost every command went out in a
// socket write of its own: write syscalls were a fifth of the dispatcher's busy time (docs/nats.md#coalesced-writes).
// Here the flush waits for the end of the current event-loop turn (setImmediate), so everything a turn produces goes
// out in one write; a buffer that reaches nats-core's own threshold is still written at once.
// Applied once, by importing this module (shared/nats/connect.ts does); the test pins the behaviour, so an upgrade
// of nats-core that changes it fails there first.
import { ProtocolHandler } from "@nats-io/nats-core/internal";

/** The parts of ProtocolHandler the patch uses (flushPending is private in the typings, public at run time). */
interface Flushing {
  outbound: { size(): number };
  pendingLimit: number;
  flushPending(): void;
  [SCHEDULED]?: boolean;
}

const PATCHED = Symbol.for("inquest.coalescedWrites");
const SCHEDULED = Symbol("inquest.flushScheduled");
const proto = ProtocolHandler.prototype as unknown as Flushing & { [PATCHED]?: true };

if (!proto[PATCHED] && typeof proto.flushPending === "function") {
  const flushNow = proto.flushPending;
  proto.flushPending = function (this: Flushing) {
    if (this.outbound.size() >= this.pendingLimit) return flushNow.call(this);
    if (this[SCHEDULED]) return;
    this[SCHEDULED] = true;
    setImmediate(() => {
      this[SCHEDULED] = false;
      flushNow.call(this);
    });
  };
  proto[PATCHED] = true;
}

/** True once the patch is in place (the test checks it). */
export const coalescedWritesPatched = (): boolean => proto[PATCHED] === true;
