// A cheaper end for answered requests. nats-core 3.4.0 finishes every request it resolves by cancelling it, and
// its cancel builds `new RequestError("cancelled")` (an Error, so a captured stack) to reject a promise that is
// already settled: one thrown-away Error per request, publish and KV operation. With 10,000 agents heartbeating,
// building them was 10 % of the runner's CPU (docs/nats.md#settled-requests). Here a request that was answered
// skips that Error; a request cancelled before any answer (timeout, failed publish) is cancelled as before.
// Applied once, by importing this module (shared/nats/connect.ts does); the test pins the behaviour, so an
// upgrade of nats-core that changes it fails there first.
import { RequestOne } from "@nats-io/nats-core/internal";

type Tracked = RequestOne & { answered?: boolean };

const PATCHED = Symbol.for("inquest.settledRequests");
const proto = RequestOne.prototype as Tracked & { [PATCHED]?: true };

if (!proto[PATCHED]) {
  const resolver = proto.resolver;
  const cancel = proto.cancel;
  proto.resolver = function (this: Tracked, err, msg) {
    this.answered = true; // the deferred settles inside `resolver`, before it cancels itself
    resolver.call(this, err, msg);
  };
  proto.cancel = function (this: Tracked, err?: Error) {
    if (err !== undefined || !this.answered) return cancel.call(this, err);
    this.timer?.cancel();
    this.mux.cancel(this);
  };
  proto[PATCHED] = true;
}

/** True once the patch is in place (the test checks it). */
export const settledRequestsPatched = (): boolean => proto[PATCHED] === true;
