// The ingestor's NATS side: answers receipts on INBOUND_SUBJECT in the `ingestor` queue group (any number of
// replicas; each receipt goes to one), validating each request at the edge. Spilled bodies are discarded once
// answered. Stopping drains the subscription and waits for the receipts in hand.
import type { KV } from "@nats-io/kv";
import type { Msg, NatsConnection, Subscription } from "@nats-io/transport-node";
import { discardBody } from "../../shared/inbound/body.js";
import { INBOUND_QUEUE, INBOUND_SUBJECT } from "../../shared/inbound/catalog.js";
import { receiptRequestChecker, type ReceiptOutcome } from "../../shared/inbound/messages.js";
import type { Component } from "../../shared/lifecycle.js";
import type { Logger } from "../../shared/log.js";
import { decodeJson, encodeJson } from "../../shared/nats/kvjson.js";
import { SecretDecryptError } from "../../shared/secrets.js";
import { receive, type ReceiveDeps } from "./receive.js";

export class ReceiptResponder implements Component {
  readonly name = "inbound-receipts";
  private sub: Subscription | null = null;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly nc: NatsConnection, private readonly spill: KV, private readonly deps: ReceiveDeps, private readonly log: Logger) {}

  async start(): Promise<void> {
    this.sub = this.nc.subscribe(INBOUND_SUBJECT, {
      queue: INBOUND_QUEUE,
      callback: (err, msg) => {
        if (err) {
          this.log.error({ err }, "inbound: subscription error");
          return;
        }
        const work = this.answer(msg).finally(() => this.inFlight.delete(work));
        this.inFlight.add(work);
      },
    });
    await this.nc.flush(); // the server knows the subscription before the service says it is ready
  }

  async stop(): Promise<void> {
    await this.sub?.drain();
    await Promise.allSettled([...this.inFlight]);
  }

  private async answer(msg: Msg): Promise<void> {
    let decoded: unknown;
    try {
      decoded = decodeJson<unknown>(msg.data);
    } catch {
      decoded = undefined;
    }
    const checked = receiptRequestChecker.check(decoded);
    let outcome: ReceiptOutcome;
    if (!checked.ok) {
      this.log.error({ details: checked.details }, "inbound: a receipt does not match the schema");
      outcome = { kind: "internal" };
    } else {
      try {
        outcome = await receive(this.deps, checked.value);
      } catch (err) {
        outcome = this.unexpected(err);
      }
      await discardBody(this.spill, checked.value.body).catch((err: unknown) => this.log.warn({ err }, "inbound: could not discard a spilled body"));
    }
    try {
      msg.respond(encodeJson(outcome));
    } catch (err) {
      this.log.warn({ err }, "inbound: could not answer a receipt");
    }
  }

  private unexpected(err: unknown): ReceiptOutcome {
    if (err instanceof SecretDecryptError) {
      this.log.error({ err }, "inbound: a stored signing secret does not open with INQUEST_MASTER_KEY (was the key changed?)");
      return { kind: "internal" };
    }
    if (looksLikeNatsTrouble(err)) {
      this.log.warn({ err }, "inbound: NATS unavailable");
      return { kind: "unavailable", message: "the message bus is unavailable; retry shortly" };
    }
    this.log.error({ err }, "inbound: unexpected error");
    return { kind: "internal" };
  }
}

function looksLikeNatsTrouble(err: unknown): boolean {
  const text = err instanceof Error ? `${err.name} ${err.message} ${String((err as { code?: unknown }).code ?? "")}` : "";
  return /TIMEOUT|timeout|CONNECTION_CLOSED|closed|disconnect|no responders|503|DRAINING/i.test(text);
}
