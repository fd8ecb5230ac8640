// Generated from openapi.json by openapi-typescript (`make openapi`); do not edit. docs/api.md#openapi
export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Process is alive */
        get: operations["getHealthz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Ready: NATS connected, streams and buckets present */
        get: operations["getReadyz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Prometheus metrics */
        get: operations["getMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This API's OpenAPI 3.1 document */
        get: operations["getOpenapiJson"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/investigations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List investigations, newest first */
        get: operations["getInvestigations"];
        put?: never;
        /** Trigger an investigation */
        post: operations["postInvestigations"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/investigations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read an investigation */
        get: operations["getInvestigationsById"];
        put?: never;
        post?: never;
        /** Cancel an investigation (idempotent) */
        delete: operations["deleteInvestigationsById"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List registered agents */
        get: operations["getAgents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/whoami": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The calling API key: its id, name, prefix and scopes (any valid key) */
        get: operations["getAuthWhoami"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/investigations/{id}/findings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List an investigation's findings, most severe first */
        get: operations["getInvestigationsByIdFindings"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/incoming/endpoints/{id}/receipts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List an inbound endpoint's receipts (7 days), newest first, optionally by outcome */
        get: operations["getWebhooksIncomingEndpointsByIdReceipts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/incoming/endpoints/{id}/receipts/{receipt_id}/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Re-process a receipt's stored request as if just received (its signature window skipped); records a new receipt */
        post: operations["postWebhooksIncomingEndpointsByIdReceiptsByReceiptIdReplay"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/incoming/endpoints": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List inbound endpoints (no URL secrets), oldest first */
        get: operations["getWebhooksIncomingEndpoints"];
        put?: never;
        /** Create an inbound endpoint (the receiver URL is shown once) */
        post: operations["postWebhooksIncomingEndpoints"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/incoming/endpoints/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete an inbound endpoint; its receiver URL answers 401 from then on */
        delete: operations["deleteWebhooksIncomingEndpointsById"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/incoming/{provider}/{key}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Receive a provider's webhook (authenticated by the URL key and, when set, the provider signature) */
        post: operations["postWebhooksIncomingByProviderByKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/event-types": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the event types with each envelope's JSON Schema */
        get: operations["getWebhooksEventTypes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/curiosity": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List curiosity items, soonest next_run_at first */
        get: operations["getCuriosity"];
        put?: never;
        /** Create a curiosity item (first run at first_run_at, or now) */
        post: operations["postCuriosity"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/curiosity/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a curiosity item */
        get: operations["getCuriosityById"];
        put?: never;
        post?: never;
        /** Delete a curiosity item for good (investigations it triggered stay) */
        delete: operations["deleteCuriosityById"];
        options?: never;
        head?: never;
        /** Change a curiosity item: interval or first_run_at re-queue it, active pauses or resumes it */
        patch: operations["patchCuriosityById"];
        trace?: never;
    };
    "/v1/webhooks/subscriptions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List subscriptions (oldest first; never the secret) */
        get: operations["getWebhooksSubscriptions"];
        put?: never;
        /** Create an outbound webhook subscription (the secret is shown only here) */
        post: operations["postWebhooksSubscriptions"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/subscriptions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a subscription (never the secret) */
        get: operations["getWebhooksSubscriptionsById"];
        put?: never;
        post?: never;
        /** Delete a subscription; its pending deliveries end failed_permanent */
        delete: operations["deleteWebhooksSubscriptionsById"];
        options?: never;
        head?: never;
        /** Change a subscription: only the included fields change; events, filters and headers are replaced whole */
        patch: operations["patchWebhooksSubscriptionsById"];
        trace?: never;
    };
    "/v1/webhooks/subscriptions/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a test delivery: the first subscribed type, placeholder data, "test": true */
        post: operations["postWebhooksSubscriptionsByIdTest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/subscriptions/{id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Rotate the secret (the new one is shown only here); the old one also signs for grace_period_seconds (default 24 h, at most 7 days) */
        post: operations["postWebhooksSubscriptionsByIdRotateSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List outbound deliveries, newest first (status=failed_permanent is the dead-letter queue) */
        get: operations["getWebhooksDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/deliveries/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a delivery with the envelope it sends */
        get: operations["getWebhooksDeliveriesById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/deliveries/{id}/attempts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every attempt of a delivery with what the endpoint answered (a few headers, the first 4 KiB of the body) */
        get: operations["getWebhooksDeliveriesByIdAttempts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/deliveries/{id}/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Fire a delivery again: new delivery_id, same event_id and envelope, fresh attempt budget */
        post: operations["postWebhooksDeliveriesByIdReplay"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/subscriptions/{id}/recover": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Re-send the window's dead-lettered deliveries and the events the subscription missed, as a background job (idempotent per window) */
        post: operations["postWebhooksSubscriptionsByIdRecover"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/recoveries/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A recovery job's progress: status, events scanned of the total, what was re-sent */
        get: operations["getWebhooksRecoveriesById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    "investigation.queued": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * An investigation was accepted and queued.
         * @description Sent to every subscription of this event type, signed as docs/api.md#delivery-headers says.
         */
        post: operations["onInvestigationQueuedEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "investigation.started": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A runner started the investigation.
         * @description Sent to every subscription of this event type, signed as docs/api.md#delivery-headers says.
         */
        post: operations["onInvestigationStartedEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "investigation.completed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The investigation finished; `summary` holds the outcome.
         * @description Sent to every subscription of this event type, signed as docs/api.md#delivery-headers says.
         */
        post: operations["onInvestigationCompletedEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "investigation.failed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The investigation failed.
         * @description Sent to every subscription of this event type, signed as docs/api.md#delivery-headers says.
         */
        post: operations["onInvestigationFailedEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "investigation.cancelled": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The investigation was cancelled.
         * @description Sent to every subscription of this event type, signed as docs/api.md#delivery-headers says.
         */
        post: operations["onInvestigationCancelledEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "finding.discovered": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * An investigation found something.
         * @description Sent to every subscription of this event type, signed as docs/api.md#delivery-headers says.
         */
        post: operations["onFindingDiscoveredEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "agent.registered": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * An agent said hello for the first time.
         * @description Sent to every subscription of this event type, signed as docs/api.md#delivery-headers says.
         */
        post: operations["onAgentRegisteredEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "agent.connected": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * An agent came (back) online.
         * @description Sent to every subscription of this event type, signed as docs/api.md#delivery-headers says.
         */
        post: operations["onAgentConnectedEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "agent.disconnected": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * An agent stopped sending heartbeats.
         * @description Sent to every subscription of this event type, signed as docs/api.md#delivery-headers says.
         */
        post: operations["onAgentDisconnectedEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "subscription.disabled": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The dispatcher disabled a subscription: its endpoint answered 410 Gone, or every attempt failed for days. PATCH `active: true` turns it back on.
         * @description Sent to every subscription of this event type, signed as docs/api.md#delivery-headers says.
         */
        post: operations["onSubscriptionDisabledEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "delivery.dead_lettered": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A webhook delivery failed for good (five failed attempts, or a permanent 4xx); replay it once the endpoint is fixed. Not sent for deliveries of this event type itself.
         * @description Sent to every subscription of this event type, signed as docs/api.md#delivery-headers says.
         */
        post: operations["onDeliveryDeadLetteredEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        ErrorBody: {
            error: {
                code: string;
                message: string;
                details?: {
                    path: string;
                    message: string;
                }[];
            };
        };
        /** @description Agent selector: tags AND together; agent_ids narrows to those agents. */
        Scope: {
            /** @constant */
            type: "selector";
            filter: {
                tags?: {
                    [key: string]: string;
                };
                agent_ids?: string[];
            };
        };
        Finding: {
            finding_id: string;
            detection_id: string;
            title: string;
            /** @description Ordered info < low < medium < high < critical. */
            severity: "info" | "low" | "medium" | "high" | "critical";
            confidence: number;
            agent_id: string;
            hostname: string;
            summary: string;
            evidence: {
                table: string;
                row: {
                    [key: string]: unknown;
                };
                /**
                 * Format: date-time
                 * @description RFC 3339 UTC with milliseconds.
                 */
                collected_at: string;
            }[];
            attack: string[];
            path?: string[];
            /** @description Curiosity runs only: not reported by the previous run of the same item. */
            new_since_last_run?: boolean;
        };
        InvestigationListItem: {
            investigation_id: string;
            /** @enum {string} */
            status: "queued" | "running" | "completed" | "failed" | "cancelled";
            query: string;
            /** @description How far the investigation goes: budgets and deadlines grow with depth. */
            depth: "quick" | "standard" | "deep";
            mode: "auto" | "cached" | "live";
            scope: components["schemas"]["Scope"] | null;
            context: {
                /** @enum {string} */
                trigger_source: "api" | "curiosity" | "inbound:generic" | "inbound:edr" | "inbound:ci";
                trigger_id: string | null;
                curiosity_id: string | null;
                inbound_endpoint_id: string | null;
                /** @description Curiosity runs only: the item's previous completed run, the one `new_since_last_run` compares with (null on its first run). */
                previous_investigation_id?: string | null;
            };
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds.
             */
            started_at: string;
            running_at: string | null;
            completed_at: string | null;
            progress: {
                phase: string;
                plans_total: number;
                plans_completed: number;
                agents_targeted: number;
                agents_responded: number;
                agents_unreachable: number;
            } | null;
            summary: {
                narrative: string;
                /** @description Ordered info < low < medium < high < critical. */
                severity: "info" | "low" | "medium" | "high" | "critical";
                verdict: "malicious" | "suspicious" | "benign" | "inconclusive";
                findings_count: number;
                route: "detections" | "pathfinder" | "both";
            } | null;
            freshness: {
                data_age_seconds: number | null;
                stale_agents: number;
                agents_without_snapshot: number;
                recommendation: {
                    should_rerun_live: boolean;
                    recommended_scope: components["schemas"]["Scope"] | null;
                    reason: string;
                };
            } | null;
            error: {
                code: string;
                message: string;
            } | null;
            links: {
                self: string;
                cancel: string;
            };
        };
        InboundEndpoint: {
            id: string;
            /**
             * @description Where the events come from: generic, edr (CrowdStrike-style) or ci (GitHub-compatible).
             * @enum {string}
             */
            provider: "generic" | "edr" | "ci";
            default_scope: components["schemas"]["Scope"] | null;
            /** @description How far the investigation goes: budgets and deadlines grow with depth. */
            default_depth: "quick" | "standard" | "deep";
            active: boolean;
            /** @description The only part of the URL secret shown after creation. */
            url_key_prefix: string;
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds.
             */
            created_at: string;
            has_signing_secret: boolean;
        };
        InboundReceipt: {
            receipt_id: string;
            endpoint_id: string;
            /**
             * @description Where the events come from: generic, edr (CrowdStrike-style) or ci (GitHub-compatible).
             * @enum {string}
             */
            provider: "generic" | "edr" | "ci";
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds.
             */
            received_at: string;
            /**
             * @description triggered: an investigation was queued; ignored: 202 without one; rejected: a 4xx, or 202 with `error`.
             * @enum {string}
             */
            outcome: "triggered" | "ignored" | "rejected";
            reason: string | null;
            /** @description The HTTP status the receiver answered. */
            status: number;
            investigation_id: string | null;
            /** @description The receipt this one replayed. */
            replay_of: string | null;
            body: {
                bytes: number;
                truncated: boolean;
                kept_bytes: number;
            } | null;
        };
        /** @description An investigation was accepted and queued. */
        InvestigationQueuedEvent: {
            event_id: string;
            /** @constant */
            type: "investigation.queued";
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds.
             */
            created_at: string;
            data: {
                investigation_id: string;
                /** @enum {string} */
                status: "queued" | "running" | "completed" | "failed" | "cancelled";
                query: string;
                /** @description How far the investigation goes: budgets and deadlines grow with depth. */
                depth: "quick" | "standard" | "deep";
                mode: "auto" | "cached" | "live";
                scope: components["schemas"]["Scope"] | null;
                context: {
                    /** @enum {string} */
                    trigger_source: "api" | "curiosity" | "inbound:generic" | "inbound:edr" | "inbound:ci";
                    trigger_id: string | null;
                    curiosity_id: string | null;
                    inbound_endpoint_id: string | null;
                    /** @description Curiosity runs only: the item's previous completed run, the one `new_since_last_run` compares with (null on its first run). */
                    previous_investigation_id?: string | null;
                };
                /**
                 * Format: date-time
                 * @description RFC 3339 UTC with milliseconds.
                 */
                started_at: string;
                completed_at: string | null;
                summary: {
                    narrative: string;
                    /** @description Ordered info < low < medium < high < critical. */
                    severity: "info" | "low" | "medium" | "high" | "critical";
                    verdict: "malicious" | "suspicious" | "benign" | "inconclusive";
                    findings_count: number;
                    route: "detections" | "pathfinder" | "both";
                } | null;
            };
            /** @description true on test deliveries */
            test?: boolean;
        };
        /** @description A runner started the investigation. */
        InvestigationStartedEvent: {
            event_id: string;
            /** @constant */
            type: "investigation.started";
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds.
             */
            created_at: string;
            data: {
                investigation_id: string;
                /** @enum {string} */
                status: "queued" | "running" | "completed" | "failed" | "cancelled";
                query: string;
                /** @description How far the investigation goes: budgets and deadlines grow with depth. */
                depth: "quick" | "standard" | "deep";
                mode: "auto" | "cached" | "live";
                scope: components["schemas"]["Scope"] | null;
                context: {
                    /** @enum {string} */
                    trigger_source: "api" | "curiosity" | "inbound:generic" | "inbound:edr" | "inbound:ci";
                    trigger_id: string | null;
                    curiosity_id: string | null;
                    inbound_endpoint_id: string | null;
                    /** @description Curiosity runs only: the item's previous completed run, the one `new_since_last_run` compares with (null on its first run). */
                    previous_investigation_id?: string | null;
                };
                /**
                 * Format: date-time
                 * @description RFC 3339 UTC with milliseconds.
                 */
                started_at: string;
                completed_at: string | null;
                summary: {
                    narrative: string;
                    /** @description Ordered info < low < medium < high < critical. */
                    severity: "info" | "low" | "medium" | "high" | "critical";
                    verdict: "malicious" | "suspicious" | "benign" | "inconclusive";
                    findings_count: number;
                    route: "detections" | "pathfinder" | "both";
                } | null;
            };
            /** @description true on test deliveries */
            test?: boolean;
        };
        /** @description The investigation finished; `summary` holds the outcome. */
        InvestigationCompletedEvent: {
            event_id: string;
            /** @constant */
            type: "investigation.completed";
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds.
             */
            created_at: string;
            data: {
                investigation_id: string;
                /** @enum {string} */
                status: "queued" | "running" | "completed" | "failed" | "cancelled";
                query: string;
                /** @description How far the investigation goes: budgets and deadlines grow with depth. */
                depth: "quick" | "standard" | "deep";
                mode: "auto" | "cached" | "live";
                scope: components["schemas"]["Scope"] | null;
                context: {
                    /** @enum {string} */
                    trigger_source: "api" | "curiosity" | "inbound:generic" | "inbound:edr" | "inbound:ci";
                    trigger_id: string | null;
                    curiosity_id: string | null;
                    inbound_endpoint_id: string | null;
                    /** @description Curiosity runs only: the item's previous completed run, the one `new_since_last_run` compares with (null on its first run). */
                    previous_investigation_id?: string | null;
                };
                /**
                 * Format: date-time
                 * @description RFC 3339 UTC with milliseconds.
                 */
                started_at: string;
                completed_at: string | null;
                summary: {
                    narrative: string;
                    /** @description Ordered info < low < medium < high < critical. */
                    severity: "info" | "low" | "medium" | "high" | "critical";
                    verdict: "malicious" | "suspicious" | "benign" | "inconclusive";
                    findings_count: number;
                    route: "detections" | "pathfinder" | "both";
                } | null;
            };
            /** @description true on test deliveries */
            test?: boolean;
        };
        /** @description The investigation failed. */
        InvestigationFailedEvent: {
            event_id: string;
            /** @constant */
            type: "investigation.failed";
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds.
             */
            created_at: string;
            data: {
                investigation_id: string;
                /** @enum {string} */
                status: "queued" | "running" | "completed" | "failed" | "cancelled";
                query: string;
                /** @description How far the investigation goes: budgets and deadlines grow with depth. */
                depth: "quick" | "standard" | "deep";
                mode: "auto" | "cached" | "live";
                scope: components["schemas"]["Scope"] | null;
                context: {
                    /** @enum {string} */
                    trigger_source: "api" | "curiosity" | "inbound:generic" | "inbound:edr" | "inbound:ci";
                    trigger_id: string | null;
                    curiosity_id: string | null;
                    inbound_endpoint_id: string | null;
                    /** @description Curiosity runs only: the item's previous completed run, the one `new_since_last_run` compares with (null on its first run). */
                    previous_investigation_id?: string | null;
                };
                /**
                 * Format: date-time
                 * @description RFC 3339 UTC with milliseconds.
                 */
                started_at: string;
                completed_at: string | null;
                summary: {
                    narrative: string;
                    /** @description Ordered info < low < medium < high < critical. */
                    severity: "info" | "low" | "medium" | "high" | "critical";
                    verdict: "malicious" | "suspicious" | "benign" | "inconclusive";
                    findings_count: number;
                    route: "detections" | "pathfinder" | "both";
                } | null;
            };
            /** @description true on test deliveries */
            test?: boolean;
        };
        /** @description The investigation was cancelled. */
        InvestigationCancelledEvent: {
            event_id: string;
            /** @constant */
            type: "investigation.cancelled";
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds.
             */
            created_at: string;
            data: {
                investigation_id: string;
                /** @enum {string} */
                status: "queued" | "running" | "completed" | "failed" | "cancelled";
                query: string;
                /** @description How far the investigation goes: budgets and deadlines grow with depth. */
                depth: "quick" | "standard" | "deep";
                mode: "auto" | "cached" | "live";
                scope: components["schemas"]["Scope"] | null;
                context: {
                    /** @enum {string} */
                    trigger_source: "api" | "curiosity" | "inbound:generic" | "inbound:edr" | "inbound:ci";
                    trigger_id: string | null;
                    curiosity_id: string | null;
                    inbound_endpoint_id: string | null;
                    /** @description Curiosity runs only: the item's previous completed run, the one `new_since_last_run` compares with (null on its first run). */
                    previous_investigation_id?: string | null;
                };
                /**
                 * Format: date-time
                 * @description RFC 3339 UTC with milliseconds.
                 */
                started_at: string;
                completed_at: string | null;
                summary: {
                    narrative: string;
                    /** @description Ordered info < low < medium < high < critical. */
                    severity: "info" | "low" | "medium" | "high" | "critical";
                    verdict: "malicious" | "suspicious" | "benign" | "inconclusive";
                    findings_count: number;
                    route: "detections" | "pathfinder" | "both";
                } | null;
            };
            /** @description true on test deliveries */
            test?: boolean;
        };
        /** @description An investigation found something. */
        FindingDiscoveredEvent: {
            event_id: string;
            /** @constant */
            type: "finding.discovered";
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds.
             */
            created_at: string;
            data: {
                investigation_id: string;
                finding: components["schemas"]["Finding"];
            };
            /** @description true on test deliveries */
            test?: boolean;
        };
        /** @description An agent said hello for the first time. */
        AgentRegisteredEvent: {
            event_id: string;
            /** @constant */
            type: "agent.registered";
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds.
             */
            created_at: string;
            data: {
                agent_id: string;
                hostname: string;
                tags: {
                    [key: string]: string;
                };
                edr_device_id: string | null;
                status: "online" | "offline";
                last_seen_at: string | null;
                snapshot_collected_at: string | null;
            };
            /** @description true on test deliveries */
            test?: boolean;
        };
        /** @description An agent came (back) online. */
        AgentConnectedEvent: {
            event_id: string;
            /** @constant */
            type: "agent.connected";
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds.
             */
            created_at: string;
            data: {
                agent_id: string;
                hostname: string;
                tags: {
                    [key: string]: string;
                };
                edr_device_id: string | null;
                status: "online" | "offline";
                last_seen_at: string | null;
                snapshot_collected_at: string | null;
            };
            /** @description true on test deliveries */
            test?: boolean;
        };
        /** @description An agent stopped sending heartbeats. */
        AgentDisconnectedEvent: {
            event_id: string;
            /** @constant */
            type: "agent.disconnected";
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds.
             */
            created_at: string;
            data: {
                agent_id: string;
                hostname: string;
                tags: {
                    [key: string]: string;
                };
                edr_device_id: string | null;
                status: "online" | "offline";
                last_seen_at: string | null;
                snapshot_collected_at: string | null;
            };
            /** @description true on test deliveries */
            test?: boolean;
        };
        /** @description The dispatcher disabled a subscription: its endpoint answered 410 Gone, or every attempt failed for days. PATCH `active: true` turns it back on. */
        SubscriptionDisabledEvent: {
            event_id: string;
            /** @constant */
            type: "subscription.disabled";
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds.
             */
            created_at: string;
            data: {
                subscription_id: string;
                url: string;
                /** @description endpoint_gone: it answered 410 Gone; failing: every attempt failed for INQUEST_DISABLE_FAILING_AFTER (default 5 days). */
                reason: "endpoint_gone" | "failing";
                /** @description The delivery whose attempt disabled the subscription. */
                delivery_id: string;
                /**
                 * Format: date-time
                 * @description RFC 3339 UTC with milliseconds.
                 */
                disabled_at: string;
            };
            /** @description true on test deliveries */
            test?: boolean;
        };
        /** @description A webhook delivery failed for good (five failed attempts, or a permanent 4xx); replay it once the endpoint is fixed. Not sent for deliveries of this event type itself. */
        DeliveryDeadLetteredEvent: {
            event_id: string;
            /** @constant */
            type: "delivery.dead_lettered";
            /**
             * Format: date-time
             * @description RFC 3339 UTC with milliseconds.
             */
            created_at: string;
            data: {
                delivery_id: string;
                subscription_id: string;
                /** @description The event the delivery carried. */
                event_id: string;
                /** @enum {string} */
                event_type: "investigation.queued" | "investigation.started" | "investigation.completed" | "investigation.failed" | "investigation.cancelled" | "finding.discovered" | "agent.registered" | "agent.connected" | "agent.disconnected" | "subscription.disabled" | "delivery.dead_lettered";
                attempt_count: number;
                last_response_code: number | null;
                last_error: string | null;
            };
            /** @description true on test deliveries */
            test?: boolean;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getHealthz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Alive */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    getReadyz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Not ready */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    getMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Prometheus text format */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    getOpenapiJson: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OpenAPI document */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    getInvestigations: {
        parameters: {
            query?: {
                /** @description One value: a parameter given more than once is 400 validation_failed (details name it). */
                status?: "queued" | "running" | "completed" | "failed" | "cancelled";
                /** @description One value: a parameter given more than once is 400 validation_failed (details name it). */
                trigger_source?: "api" | "curiosity" | "inbound:generic" | "inbound:edr" | "inbound:ci";
                /** @description One value: a parameter given more than once is 400 validation_failed (details name it). */
                cursor?: string;
                /** @description One value: a parameter given more than once is 400 validation_failed (details name it). */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        investigations: components["schemas"]["InvestigationListItem"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Bad filter, limit or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Missing or invalid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key lacks investigations:read */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description NATS or the local read model is unavailable (`unavailable`); retry after the Retry-After header's seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    postInvestigations: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Natural-language question (not blank). */
                    query: string;
                    /** @description How far the investigation goes: budgets and deadlines grow with depth. */
                    depth?: "quick" | "standard" | "deep";
                    mode?: "auto" | "cached" | "live";
                    /** @description Absent or null: every agent. */
                    scope?: components["schemas"]["Scope"] | null;
                    idempotency_key?: string;
                };
            };
        };
        responses: {
            /** @description Queued */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        investigation_id: string;
                        /** @constant */
                        status: "queued";
                        estimated_completion_seconds: number;
                        links: {
                            self: string;
                            cancel: string;
                        };
                        freshness?: {
                            data_age_seconds: number | null;
                            stale_agents: number;
                            agents_without_snapshot: number;
                            recommendation: {
                                should_rerun_live: boolean;
                                recommended_scope: components["schemas"]["Scope"] | null;
                                reason: string;
                            };
                        };
                    };
                };
            };
            /** @description Validation error, or a question and scope too large to store together */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Missing or invalid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key lacks investigations:trigger */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Idempotency key reused with a different body */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body is over the route's limit (`payload_too_large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body is not Content-Type: application/json, or is encoded (`unsupported_media_type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Backlog over its limit */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description NATS or the local read model is unavailable (`unavailable`); retry after the Retry-After header's seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getInvestigationsById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The investigation */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        investigation_id: string;
                        /** @enum {string} */
                        status: "queued" | "running" | "completed" | "failed" | "cancelled";
                        query: string;
                        /** @description How far the investigation goes: budgets and deadlines grow with depth. */
                        depth: "quick" | "standard" | "deep";
                        mode: "auto" | "cached" | "live";
                        scope: components["schemas"]["Scope"] | null;
                        context: {
                            /** @enum {string} */
                            trigger_source: "api" | "curiosity" | "inbound:generic" | "inbound:edr" | "inbound:ci";
                            trigger_id: string | null;
                            curiosity_id: string | null;
                            inbound_endpoint_id: string | null;
                            /** @description Curiosity runs only: the item's previous completed run, the one `new_since_last_run` compares with (null on its first run). */
                            previous_investigation_id?: string | null;
                        };
                        /**
                         * Format: date-time
                         * @description RFC 3339 UTC with milliseconds.
                         */
                        started_at: string;
                        running_at: string | null;
                        completed_at: string | null;
                        progress: {
                            phase: string;
                            plans_total: number;
                            plans_completed: number;
                            agents_targeted: number;
                            agents_responded: number;
                            agents_unreachable: number;
                        } | null;
                        summary: {
                            narrative: string;
                            /** @description Ordered info < low < medium < high < critical. */
                            severity: "info" | "low" | "medium" | "high" | "critical";
                            verdict: "malicious" | "suspicious" | "benign" | "inconclusive";
                            findings_count: number;
                            route: "detections" | "pathfinder" | "both";
                        } | null;
                        freshness: {
                            data_age_seconds: number | null;
                            stale_agents: number;
                            agents_without_snapshot: number;
                            recommendation: {
                                should_rerun_live: boolean;
                                recommended_scope: components["schemas"]["Scope"] | null;
                                reason: string;
                            };
                        } | null;
                        error: {
                            code: string;
                            message: string;
                        } | null;
                        links: {
                            self: string;
                            cancel: string;
                        };
                        /** @description The most severe findings, most severe first, up to a bound (100 by default); every finding is at GET /v1/investigations/{id}/findings. */
                        findings: components["schemas"]["Finding"][];
                        /** @description How many findings the investigation has; more than `findings.length` when the list is cut at its bound. */
                        findings_total: number;
                        /** @description The engine's full report: routing rationale, severity inputs, paths, coverage gaps, next steps. */
                        report: {
                            [key: string]: unknown;
                        } | null;
                    };
                };
            };
            /** @description Missing or invalid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key lacks investigations:read */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description NATS or the local read model is unavailable (`unavailable`); retry after the Retry-After header's seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    deleteInvestigationsById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Cancelled, or already terminal */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        ok: boolean;
                        /** @enum {string} */
                        status: "queued" | "running" | "completed" | "failed" | "cancelled";
                    };
                };
            };
            /** @description Missing or invalid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key lacks investigations:trigger */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description NATS or the local read model is unavailable (`unavailable`); retry after the Retry-After header's seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getAgents: {
        parameters: {
            query?: {
                /** @description One value: a parameter given more than once is 400 validation_failed (details name it). */
                cursor?: string;
                /** @description One value: a parameter given more than once is 400 validation_failed (details name it). */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of agents */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        agents: {
                            agent_id: string;
                            hostname: string;
                            tags: {
                                [key: string]: string;
                            };
                            edr_device_id: string | null;
                            status: "online" | "offline";
                            last_seen_at: string | null;
                            snapshot_collected_at: string | null;
                        }[];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Missing or invalid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key lacks investigations:read */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description NATS or the local read model is unavailable (`unavailable`); retry after the Retry-After header's seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getAuthWhoami: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The key */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        key_id: string;
                        name: string;
                        display_prefix: string;
                        scopes: ("curiosity:read" | "curiosity:write" | "investigations:read" | "investigations:trigger" | "webhooks:manage")[];
                    };
                };
            };
            /** @description Missing or invalid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description NATS or the local read model is unavailable (`unavailable`); retry after the Retry-After header's seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getInvestigationsByIdFindings: {
        parameters: {
            query?: {
                /** @description One value: a parameter given more than once is 400 validation_failed (details name it). */
                severity?: string;
                /** @description One value: a parameter given more than once is 400 validation_failed (details name it). */
                agent_id?: string;
                /** @description One value: a parameter given more than once is 400 validation_failed (details name it). */
                cursor?: string;
                /** @description One value: a parameter given more than once is 400 validation_failed (details name it). */
                limit?: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of findings */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        findings: components["schemas"]["Finding"][];
                        findings_total: number;
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Bad filter, limit or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Missing or invalid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key lacks investigations:read */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description NATS or the local read model is unavailable (`unavailable`); retry after the Retry-After header's seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getWebhooksIncomingEndpointsByIdReceipts: {
        parameters: {
            query?: {
                /** @description One value: a parameter given more than once is 400 validation_failed (details name it). */
                outcome?: "triggered" | "ignored" | "rejected";
                /** @description One value: a parameter given more than once is 400 validation_failed (details name it). */
                cursor?: string;
                /** @description One value: a parameter given more than once is 400 validation_failed (details name it). */
                limit?: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of receipts */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        receipts: components["schemas"]["InboundReceipt"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Bad outcome, limit or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Missing or invalid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key lacks webhooks:manage */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No such endpoint */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description NATS or the local read model is unavailable (`unavailable`); retry after the Retry-After header's seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    postWebhooksIncomingEndpointsByIdReceiptsByReceiptIdReplay: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                receipt_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description The new receipt (replay_of names the original) */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InboundReceipt"];
                };
            };
            /** @description Validation error (`invalid_json`, `validation_failed`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Missing or invalid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key lacks webhooks:manage */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No such endpoint or receipt */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description not_replayable: the body was not kept in full, or has expired */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body is over the route's limit (`payload_too_large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body is not Content-Type: application/json, or is encoded (`unsupported_media_type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The message bus is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getWebhooksIncomingEndpoints: {
        parameters: {
            query?: {
                /** @description One value: a parameter given more than once is 400 validation_failed (details name it). */
                cursor?: string;
                /** @description One value: a parameter given more than once is 400 validation_failed (details name it). */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of endpoints */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        endpoints: components["schemas"]["InboundEndpoint"][];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Bad limit or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Missing or invalid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key lacks webhooks:manage */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description NATS or the local read model is unavailable (`unavailable`); retry after the Retry-After header's seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    postWebhooksIncomingEndpoints: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description Where the events come from: generic, edr (CrowdStrike-style) or ci (GitHub-compatible).
                     * @enum {string}
                     */
                    provider: "generic" | "edr" | "ci";
                    /** @description Secret the provider signs its deliveries with; enables signature checks (edr, ci). */
                    provider_signing_secret?: string;
                    /** @description Scope used when an event carries none; absent or null = every agent. */
                    default_scope?: components["schemas"]["Scope"] | null;
                    /** @description How far the investigation goes: budgets and deadlines grow with depth. */
                    default_depth?: "quick" | "standard" | "deep";
                    /** @description Default true; an inactive endpoint answers 202 ignored. */
                    active?: boolean;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /**
                         * @description Where the events come from: generic, edr (CrowdStrike-style) or ci (GitHub-compatible).
                         * @enum {string}
                         */
                        provider: "generic" | "edr" | "ci";
                        default_scope: components["schemas"]["Scope"] | null;
                        /** @description How far the investigation goes: budgets and deadlines grow with depth. */
                        default_depth: "quick" | "standard" | "deep";
                        active: boolean;
                        /** @description The only part of the URL secret shown after creation. */
                        url_key_prefix: string;
                        /**
                         * Format: date-time
                         * @description RFC 3339 UTC with milliseconds.
                         */
                        created_at: string;
                        has_signing_secret: boolean;
                        /** @description The full receiver URL including the URL secret; returned exactly once. */
                        url: string;
                    };
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Missing or invalid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key lacks webhooks:manage */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body is over the route's limit (`payload_too_large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body is not Content-Type: application/json, or is encoded (`unsupported_media_type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description NATS or the local read model is unavailable (`unavailable`); retry after the Retry-After header's seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    deleteWebhooksIncomingEndpointsById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing or invalid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key lacks webhooks:manage */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description NATS or the local read model is unavailable (`unavailable`); retry after the Retry-After header's seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    postWebhooksIncomingByProviderByKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                provider: string;
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Queued, ignored, or could not queue */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        investigation_id: string;
                    } | {
                        /** @constant */
                        ignored: true;
                        reason: string;
                    } | {
                        /** @description Why the investigation could not be queued (e.g. rate_limited). */
                        error: string;
                    };
                };
            };
            /** @description Not JSON, or a payload the provider cannot use */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unknown or deleted URL key, provider mismatch, or bad signature */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unknown provider */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Body over 1 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The message bus is unavailable; nothing was queued */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getWebhooksEventTypes: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every event type */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        event_types: {
                            /** @enum {string} */
                            type: "investigation.queued" | "investigation.started" | "investigation.completed" | "investigation.failed" | "investigation.cancelled" | "finding.discovered" | "agent.registered" | "agent.connected" | "agent.disconnected" | "subscription.disabled" | "delivery.dead_lettered";
                            description: string;
                            /** @description JSON Schema (2020-12) of the envelope, `data` included. */
                            schema: {
                                [key: string]: unknown;
                            };
                        }[];
                    };
                };
            };
            /** @description Missing or invalid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key lacks webhooks:manage */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description NATS or the local read model is unavailable (`unavailable`); retry after the Retry-After header's seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getCuriosity: {
        parameters: {
            query?: {
                /** @description One value: a parameter given more than once is 400 validation_failed (details name it). */
                cursor?: string;
                /** @description One value: a parameter given more than once is 400 validation_failed (details name it). */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: string;
                            query: string;
                            interval: string;
                            scope: components["schemas"]["Scope"] | null;
                            /** @description How far the investigation goes: budgets and deadlines grow with depth. */
                            depth: "quick" | "standard" | "deep";
                            /**
                             * Format: date-time
                             * @description RFC 3339 UTC with milliseconds.
                             */
                            first_run_at: string;
                            active: boolean;
                            /**
                             * Format: date-time
                             * @description When the item is next due (while a run is in flight: when that run was due). List order key.
                             */
                            next_run_at: string;
                            /**
                             * Format: date-time
                             * @description RFC 3339 UTC with milliseconds.
                             */
                            created_at: string;
                            /**
                             * Format: date-time
                             * @description RFC 3339 UTC with milliseconds.
                             */
                            updated_at: string;
                            /** @description When the last finished run ended. */
                            last_run_at: string | null;
                            last_investigation_id: string | null;
                            /** @description Finished runs. */
                            run_count: number;
                        }[];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Bad limit or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Missing or invalid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key lacks curiosity:read */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description NATS or the local read model is unavailable (`unavailable`); retry after the Retry-After header's seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    postCuriosity: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Natural-language question (not blank). */
                    query: string;
                    /** @description Recurrence: a number plus s, m, h, d or w, at least INQUEST_CURIOSITY_MIN_INTERVAL. */
                    interval: string;
                    /** @description Agent selector; absent or null = every agent. */
                    scope?: components["schemas"]["Scope"] | null;
                    /** @description How far the investigation goes: budgets and deadlines grow with depth. */
                    depth?: "quick" | "standard" | "deep";
                    /**
                     * Format: date-time
                     * @description RFC 3339 time of the first run; default: immediately.
                     */
                    first_run_at?: string;
                    /** @description false pauses without deleting; default true. */
                    active?: boolean;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        query: string;
                        interval: string;
                        scope: components["schemas"]["Scope"] | null;
                        /** @description How far the investigation goes: budgets and deadlines grow with depth. */
                        depth: "quick" | "standard" | "deep";
                        /**
                         * Format: date-time
                         * @description RFC 3339 UTC with milliseconds.
                         */
                        first_run_at: string;
                        active: boolean;
                        /**
                         * Format: date-time
                         * @description When the item is next due (while a run is in flight: when that run was due). List order key.
                         */
                        next_run_at: string;
                        /**
                         * Format: date-time
                         * @description RFC 3339 UTC with milliseconds.
                         */
                        created_at: string;
                        /**
                         * Format: date-time
                         * @description RFC 3339 UTC with milliseconds.
                         */
                        updated_at: string;
                        /** @description When the last finished run ended. */
                        last_run_at: string | null;
                        last_investigation_id: string | null;
                        /** @description Finished runs. */
                        run_count: number;
                    };
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Missing or invalid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key lacks curiosity:write */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body is over the route's limit (`payload_too_large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body is not Content-Type: application/json, or is encoded (`unsupported_media_type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description NATS or the local read model is unavailable (`unavailable`); retry after the Retry-After header's seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getCuriosityById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The item */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        query: string;
                        interval: string;
                        scope: components["schemas"]["Scope"] | null;
                        /** @description How far the investigation goes: budgets and deadlines grow with depth. */
                        depth: "quick" | "standard" | "deep";
                        /**
                         * Format: date-time
                         * @description RFC 3339 UTC with milliseconds.
                         */
                        first_run_at: string;
                        active: boolean;
                        /**
                         * Format: date-time
                         * @description When the item is next due (while a run is in flight: when that run was due). List order key.
                         */
                        next_run_at: string;
                        /**
                         * Format: date-time
                         * @description RFC 3339 UTC with milliseconds.
                         */
                        created_at: string;
                        /**
                         * Format: date-time
                         * @description RFC 3339 UTC with milliseconds.
                         */
                        updated_at: string;
                        /** @description When the last finished run ended. */
                        last_run_at: string | null;
                        last_investigation_id: string | null;
                        /** @description Finished runs. */
                        run_count: number;
                    };
                };
            };
            /** @description Missing or invalid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key lacks curiosity:read */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description NATS or the local read model is unavailable (`unavailable`); retry after the Retry-After header's seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    deleteCuriosityById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing or invalid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key lacks curiosity:write */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description NATS or the local read model is unavailable (`unavailable`); retry after the Retry-After header's seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    patchCuriosityById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Natural-language question (not blank). */
                    query?: string;
                    /** @description Recurrence: a number plus s, m, h, d or w, at least INQUEST_CURIOSITY_MIN_INTERVAL. */
                    interval?: string;
                    /** @description Agent selector; absent or null = every agent. */
                    scope?: components["schemas"]["Scope"] | null;
                    /** @description How far the investigation goes: budgets and deadlines grow with depth. */
                    depth?: "quick" | "standard" | "deep";
                    /**
                     * Format: date-time
                     * @description RFC 3339 time of the first run; default: immediately.
                     */
                    first_run_at?: string;
                    /** @description false pauses without deleting; default true. */
                    active?: boolean;
                };
            };
        };
        responses: {
            /** @description The updated item */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        query: string;
                        interval: string;
                        scope: components["schemas"]["Scope"] | null;
                        /** @description How far the investigation goes: budgets and deadlines grow with depth. */
                        depth: "quick" | "standard" | "deep";
                        /**
                         * Format: date-time
                         * @description RFC 3339 UTC with milliseconds.
                         */
                        first_run_at: string;
                        active: boolean;
                        /**
                         * Format: date-time
                         * @description When the item is next due (while a run is in flight: when that run was due). List order key.
                         */
                        next_run_at: string;
                        /**
                         * Format: date-time
                         * @description RFC 3339 UTC with milliseconds.
                         */
                        created_at: string;
                        /**
                         * Format: date-time
                         * @description RFC 3339 UTC with milliseconds.
                         */
                        updated_at: string;
                        /** @description When the last finished run ended. */
                        last_run_at: string | null;
                        last_investigation_id: string | null;
                        /** @description Finished runs. */
                        run_count: number;
                    };
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Missing or invalid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key lacks curiosity:write */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body is over the route's limit (`payload_too_large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body is not Content-Type: application/json, or is encoded (`unsupported_media_type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description NATS or the local read model is unavailable (`unavailable`); retry after the Retry-After header's seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getWebhooksSubscriptions: {
        parameters: {
            query?: {
                /** @description One value: a parameter given more than once is 400 validation_failed (details name it). */
                cursor?: string;
                /** @description One value: a parameter given more than once is 400 validation_failed (details name it). */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        subscriptions: {
                            id: string;
                            url: string;
                            events: ("investigation.queued" | "investigation.started" | "investigation.completed" | "investigation.failed" | "investigation.cancelled" | "finding.discovered" | "agent.registered" | "agent.connected" | "agent.disconnected" | "subscription.disabled" | "delivery.dead_lettered")[];
                            /** @description min_severity drops events whose severity is below it; events without severity pass. */
                            filters: {
                                /** @description Ordered info < low < medium < high < critical. */
                                min_severity?: "info" | "low" | "medium" | "high" | "critical";
                            };
                            active: boolean;
                            /** @description Set when the dispatcher turned the subscription off: endpoint_gone (it answered 410 Gone) or failing (every attempt failed for INQUEST_DISABLE_FAILING_AFTER, default 5 days); cleared by PATCH `active: true`. */
                            disabled_reason: "endpoint_gone" | "failing" | null;
                            /** @description When the current run of failed attempts began; null once an attempt succeeds. */
                            failing_since: string | null;
                            /** @description Names of the custom headers sent with every POST (their values are never shown). */
                            header_names: string[];
                            /** @description How long one attempt waits for an answer; null: the dispatcher's INQUEST_DELIVERY_TIMEOUT (10 s). */
                            timeout_seconds: number | null;
                            /** @description At most this many POSTs start per second across every dispatcher replica; null: no limit. Waiting spends no attempt. */
                            rate_limit_per_second: number | null;
                            /**
                             * Format: date-time
                             * @description RFC 3339 UTC with milliseconds.
                             */
                            created_at: string;
                            /**
                             * Format: date-time
                             * @description RFC 3339 UTC with milliseconds.
                             */
                            updated_at: string;
                        }[];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Bad limit or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Missing or invalid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key lacks webhooks:manage */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description NATS or the local read model is unavailable (`unavailable`); retry after the Retry-After header's seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    postWebhooksSubscriptions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Absolute http or https URL that receives the POSTs. */
                    url: string;
                    /** @description Event types subscribed to; taken as given on PATCH. */
                    events: ("investigation.queued" | "investigation.started" | "investigation.completed" | "investigation.failed" | "investigation.cancelled" | "finding.discovered" | "agent.registered" | "agent.connected" | "agent.disconnected" | "subscription.disabled" | "delivery.dead_lettered")[];
                    /** @description min_severity drops events whose severity is below it; events without severity pass. */
                    filters?: {
                        /** @description Ordered info < low < medium < high < critical. */
                        min_severity?: "info" | "low" | "medium" | "high" | "critical";
                    };
                    /** @description Default true; false pauses the subscription. */
                    active?: boolean;
                    /** @description Headers added to every POST (write-only: values are sealed at rest and never shown; replaced as a whole on PATCH, {} or null removes them). Names Inquest sets itself (Content-Type, User-Agent, X-Service-*, webhook-*, hop-by-hop headers) are refused. */
                    headers?: {
                        [key: string]: string;
                    } | null;
                    /** @description How long one attempt waits for an answer; null: the dispatcher's INQUEST_DELIVERY_TIMEOUT (10 s). */
                    timeout_seconds?: number | null;
                    /** @description At most this many POSTs start per second across every dispatcher replica; null: no limit. Waiting spends no attempt. */
                    rate_limit_per_second?: number | null;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        url: string;
                        events: ("investigation.queued" | "investigation.started" | "investigation.completed" | "investigation.failed" | "investigation.cancelled" | "finding.discovered" | "agent.registered" | "agent.connected" | "agent.disconnected" | "subscription.disabled" | "delivery.dead_lettered")[];
                        /** @description min_severity drops events whose severity is below it; events without severity pass. */
                        filters: {
                            /** @description Ordered info < low < medium < high < critical. */
                            min_severity?: "info" | "low" | "medium" | "high" | "critical";
                        };
                        active: boolean;
                        /** @description Set when the dispatcher turned the subscription off: endpoint_gone (it answered 410 Gone) or failing (every attempt failed for INQUEST_DISABLE_FAILING_AFTER, default 5 days); cleared by PATCH `active: true`. */
                        disabled_reason: "endpoint_gone" | "failing" | null;
                        /** @description When the current run of failed attempts began; null once an attempt succeeds. */
                        failing_since: string | null;
                        /** @description Names of the custom headers sent with every POST (their values are never shown). */
                        header_names: string[];
                        /** @description How long one attempt waits for an answer; null: the dispatcher's INQUEST_DELIVERY_TIMEOUT (10 s). */
                        timeout_seconds: number | null;
                        /** @description At most this many POSTs start per second across every dispatcher replica; null: no limit. Waiting spends no attempt. */
                        rate_limit_per_second: number | null;
                        /**
                         * Format: date-time
                         * @description RFC 3339 UTC with milliseconds.
                         */
                        created_at: string;
                        /**
                         * Format: date-time
                         * @description RFC 3339 UTC with milliseconds.
                         */
                        updated_at: string;
                        /** @description whsec_ + base64 of 32 random bytes; shown only here. */
                        secret: string;
                    };
                };
            };
            /** @description Validation error, bad or private URL */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Missing or invalid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key lacks webhooks:manage */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body is over the route's limit (`payload_too_large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body is not Content-Type: application/json, or is encoded (`unsupported_media_type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description NATS or the local read model is unavailable (`unavailable`); retry after the Retry-After header's seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getWebhooksSubscriptionsById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The subscription */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        url: string;
                        events: ("investigation.queued" | "investigation.started" | "investigation.completed" | "investigation.failed" | "investigation.cancelled" | "finding.discovered" | "agent.registered" | "agent.connected" | "agent.disconnected" | "subscription.disabled" | "delivery.dead_lettered")[];
                        /** @description min_severity drops events whose severity is below it; events without severity pass. */
                        filters: {
                            /** @description Ordered info < low < medium < high < critical. */
                            min_severity?: "info" | "low" | "medium" | "high" | "critical";
                        };
                        active: boolean;
                        /** @description Set when the dispatcher turned the subscription off: endpoint_gone (it answered 410 Gone) or failing (every attempt failed for INQUEST_DISABLE_FAILING_AFTER, default 5 days); cleared by PATCH `active: true`. */
                        disabled_reason: "endpoint_gone" | "failing" | null;
                        /** @description When the current run of failed attempts began; null once an attempt succeeds. */
                        failing_since: string | null;
                        /** @description Names of the custom headers sent with every POST (their values are never shown). */
                        header_names: string[];
                        /** @description How long one attempt waits for an answer; null: the dispatcher's INQUEST_DELIVERY_TIMEOUT (10 s). */
                        timeout_seconds: number | null;
                        /** @description At most this many POSTs start per second across every dispatcher replica; null: no limit. Waiting spends no attempt. */
                        rate_limit_per_second: number | null;
                        /**
                         * Format: date-time
                         * @description RFC 3339 UTC with milliseconds.
                         */
                        created_at: string;
                        /**
                         * Format: date-time
                         * @description RFC 3339 UTC with milliseconds.
                         */
                        updated_at: string;
                    };
                };
            };
            /** @description Missing or invalid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key lacks webhooks:manage */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description NATS or the local read model is unavailable (`unavailable`); retry after the Retry-After header's seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    deleteWebhooksSubscriptionsById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing or invalid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key lacks webhooks:manage */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description NATS or the local read model is unavailable (`unavailable`); retry after the Retry-After header's seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    patchWebhooksSubscriptionsById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Absolute http or https URL that receives the POSTs. */
                    url?: string;
                    /** @description Event types subscribed to; taken as given on PATCH. */
                    events?: ("investigation.queued" | "investigation.started" | "investigation.completed" | "investigation.failed" | "investigation.cancelled" | "finding.discovered" | "agent.registered" | "agent.connected" | "agent.disconnected" | "subscription.disabled" | "delivery.dead_lettered")[];
                    /** @description min_severity drops events whose severity is below it; events without severity pass. */
                    filters?: {
                        /** @description Ordered info < low < medium < high < critical. */
                        min_severity?: "info" | "low" | "medium" | "high" | "critical";
                    };
                    /** @description Default true; false pauses the subscription. */
                    active?: boolean;
                    /** @description Headers added to every POST (write-only: values are sealed at rest and never shown; replaced as a whole on PATCH, {} or null removes them). Names Inquest sets itself (Content-Type, User-Agent, X-Service-*, webhook-*, hop-by-hop headers) are refused. */
                    headers?: {
                        [key: string]: string;
                    } | null;
                    /** @description How long one attempt waits for an answer; null: the dispatcher's INQUEST_DELIVERY_TIMEOUT (10 s). */
                    timeout_seconds?: number | null;
                    /** @description At most this many POSTs start per second across every dispatcher replica; null: no limit. Waiting spends no attempt. */
                    rate_limit_per_second?: number | null;
                };
            };
        };
        responses: {
            /** @description The updated subscription */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        url: string;
                        events: ("investigation.queued" | "investigation.started" | "investigation.completed" | "investigation.failed" | "investigation.cancelled" | "finding.discovered" | "agent.registered" | "agent.connected" | "agent.disconnected" | "subscription.disabled" | "delivery.dead_lettered")[];
                        /** @description min_severity drops events whose severity is below it; events without severity pass. */
                        filters: {
                            /** @description Ordered info < low < medium < high < critical. */
                            min_severity?: "info" | "low" | "medium" | "high" | "critical";
                        };
                        active: boolean;
                        /** @description Set when the dispatcher turned the subscription off: endpoint_gone (it answered 410 Gone) or failing (every attempt failed for INQUEST_DISABLE_FAILING_AFTER, default 5 days); cleared by PATCH `active: true`. */
                        disabled_reason: "endpoint_gone" | "failing" | null;
                        /** @description When the current run of failed attempts began; null once an attempt succeeds. */
                        failing_since: string | null;
                        /** @description Names of the custom headers sent with every POST (their values are never shown). */
                        header_names: string[];
                        /** @description How long one attempt waits for an answer; null: the dispatcher's INQUEST_DELIVERY_TIMEOUT (10 s). */
                        timeout_seconds: number | null;
                        /** @description At most this many POSTs start per second across every dispatcher replica; null: no limit. Waiting spends no attempt. */
                        rate_limit_per_second: number | null;
                        /**
                         * Format: date-time
                         * @description RFC 3339 UTC with milliseconds.
                         */
                        created_at: string;
                        /**
                         * Format: date-time
                         * @description RFC 3339 UTC with milliseconds.
                         */
                        updated_at: string;
                    };
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Missing or invalid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key lacks webhooks:manage */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body is over the route's limit (`payload_too_large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body is not Content-Type: application/json, or is encoded (`unsupported_media_type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description NATS or the local read model is unavailable (`unavailable`); retry after the Retry-After header's seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    postWebhooksSubscriptionsByIdTest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Queued */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        delivery_id: string;
                    };
                };
            };
            /** @description Missing or invalid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key lacks webhooks:manage */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description NATS or the local read model is unavailable (`unavailable`); retry after the Retry-After header's seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    postWebhooksSubscriptionsByIdRotateSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description How long the old secret keeps signing (default 86400 = 24 h; 0 = at once). */
                    grace_period_seconds?: number;
                };
            };
        };
        responses: {
            /** @description The new secret */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @description The new secret, `whsec_<base64>`: shown only here. */
                        secret: string;
                        previous_secret_expires_at: string | null;
                    };
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Missing or invalid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key lacks webhooks:manage */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body is over the route's limit (`payload_too_large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body is not Content-Type: application/json, or is encoded (`unsupported_media_type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description NATS or the local read model is unavailable (`unavailable`); retry after the Retry-After header's seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getWebhooksDeliveries: {
        parameters: {
            query?: {
                /** @description One value: a parameter given more than once is 400 validation_failed (details name it). */
                status?: "pending" | "delivered" | "failed_permanent";
                /** @description One value: a parameter given more than once is 400 validation_failed (details name it). */
                subscription_id?: string;
                /** @description One value: a parameter given more than once is 400 validation_failed (details name it). */
                event_id?: string;
                /** @description One value: a parameter given more than once is 400 validation_failed (details name it). */
                cursor?: string;
                /** @description One value: a parameter given more than once is 400 validation_failed (details name it). */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        deliveries: {
                            delivery_id: string;
                            event_id: string;
                            /** @enum {string} */
                            event_type: "investigation.queued" | "investigation.started" | "investigation.completed" | "investigation.failed" | "investigation.cancelled" | "finding.discovered" | "agent.registered" | "agent.connected" | "agent.disconnected" | "subscription.disabled" | "delivery.dead_lettered";
                            subscription_id: string;
                            /**
                             * @description failed_permanent is the dead-letter state.
                             * @enum {string}
                             */
                            status: "pending" | "delivered" | "failed_permanent";
                            attempt_count: number;
                            /** @description null when no HTTP answer was received. */
                            last_response_code: number | null;
                            /** @description The first 4096 bytes. */
                            last_response_body: string | null;
                            /** @description e.g. timeout, connection_refused, http_500, subscription_deleted. */
                            last_error: string | null;
                            next_attempt_at: string | null;
                            /**
                             * Format: date-time
                             * @description RFC 3339 UTC with milliseconds.
                             */
                            created_at: string;
                            /**
                             * Format: date-time
                             * @description RFC 3339 UTC with milliseconds.
                             */
                            updated_at: string;
                            replay_of: string | null;
                            attempts: {
                                attempt: number;
                                /**
                                 * Format: date-time
                                 * @description RFC 3339 UTC with milliseconds.
                                 */
                                at: string;
                                response_code: number | null;
                                duration_ms: number;
                                error: string | null;
                            }[];
                        }[];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Bad filter, limit or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Missing or invalid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key lacks webhooks:manage */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description NATS or the local read model is unavailable (`unavailable`); retry after the Retry-After header's seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getWebhooksDeliveriesById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The delivery */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        delivery_id: string;
                        event_id: string;
                        /** @enum {string} */
                        event_type: "investigation.queued" | "investigation.started" | "investigation.completed" | "investigation.failed" | "investigation.cancelled" | "finding.discovered" | "agent.registered" | "agent.connected" | "agent.disconnected" | "subscription.disabled" | "delivery.dead_lettered";
                        subscription_id: string;
                        /**
                         * @description failed_permanent is the dead-letter state.
                         * @enum {string}
                         */
                        status: "pending" | "delivered" | "failed_permanent";
                        attempt_count: number;
                        /** @description null when no HTTP answer was received. */
                        last_response_code: number | null;
                        /** @description The first 4096 bytes. */
                        last_response_body: string | null;
                        /** @description e.g. timeout, connection_refused, http_500, subscription_deleted. */
                        last_error: string | null;
                        next_attempt_at: string | null;
                        /**
                         * Format: date-time
                         * @description RFC 3339 UTC with milliseconds.
                         */
                        created_at: string;
                        /**
                         * Format: date-time
                         * @description RFC 3339 UTC with milliseconds.
                         */
                        updated_at: string;
                        replay_of: string | null;
                        attempts: {
                            attempt: number;
                            /**
                             * Format: date-time
                             * @description RFC 3339 UTC with milliseconds.
                             */
                            at: string;
                            response_code: number | null;
                            duration_ms: number;
                            error: string | null;
                        }[];
                        envelope: {
                            /** @description 1-128 visible ASCII characters (no spaces); Inquest's own are evt_ and 26 characters */
                            event_id: string;
                            /** @enum {string} */
                            type: "investigation.queued" | "investigation.started" | "investigation.completed" | "investigation.failed" | "investigation.cancelled" | "finding.discovered" | "agent.registered" | "agent.connected" | "agent.disconnected" | "subscription.disabled" | "delivery.dead_lettered";
                            /**
                             * Format: date-time
                             * @description RFC 3339 UTC with milliseconds.
                             */
                            created_at: string;
                            data: {
                                [key: string]: unknown;
                            };
                            test?: boolean;
                        };
                    };
                };
            };
            /** @description Missing or invalid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key lacks webhooks:manage */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description NATS or the local read model is unavailable (`unavailable`); retry after the Retry-After header's seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getWebhooksDeliveriesByIdAttempts: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The attempts, oldest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        delivery_id: string;
                        attempts: {
                            attempt: number;
                            /**
                             * Format: date-time
                             * @description RFC 3339 UTC with milliseconds.
                             */
                            at: string;
                            response_code: number | null;
                            duration_ms: number;
                            error: string | null;
                            /** @description A few response headers (content-type, content-length, retry-after, date, server, x-request-id, location), each cut at 256 characters; null without an HTTP answer. */
                            response_headers: {
                                [key: string]: string;
                            } | null;
                            /** @description The first 4096 bytes of the answer, as text; null without an HTTP answer. */
                            response_body: string | null;
                        }[];
                    };
                };
            };
            /** @description Missing or invalid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key lacks webhooks:manage */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description NATS or the local read model is unavailable (`unavailable`); retry after the Retry-After header's seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    postWebhooksDeliveriesByIdReplay: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Queued */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        delivery_id: string;
                        /**
                         * @description failed_permanent is the dead-letter state.
                         * @enum {string}
                         */
                        status: "pending" | "delivered" | "failed_permanent";
                    };
                };
            };
            /** @description Missing or invalid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key lacks webhooks:manage */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description NATS or the local read model is unavailable (`unavailable`); retry after the Retry-After header's seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    postWebhooksSubscriptionsByIdRecover: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: date-time
                     * @description RFC 3339 UTC with milliseconds.
                     */
                    since: string;
                    /**
                     * Format: date-time
                     * @description RFC 3339 UTC with milliseconds.
                     */
                    until?: string;
                };
            };
        };
        responses: {
            /** @description The recovery job, with the dead letters it found; the same job while it runs */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        recovery_id: string;
                        subscription_id: string;
                        /**
                         * Format: date-time
                         * @description RFC 3339 UTC with milliseconds.
                         */
                        since: string;
                        /**
                         * Format: date-time
                         * @description RFC 3339 UTC with milliseconds.
                         */
                        until: string;
                        /**
                         * @description queued, running, then completed (or failed, with error).
                         * @enum {string}
                         */
                        status: "queued" | "running" | "completed" | "failed";
                        /** @description 1 for the first run of this window; a POST after a finished run starts the next. */
                        run: number;
                        /** @description Dead-lettered deliveries of the subscription in the window when the run was asked for. */
                        dead_letters_found: number;
                        /** @description Events of the window read so far. */
                        events_scanned: number;
                        /** @description Events the scan will read at most (null until it starts). */
                        events_total: number | null;
                        /** @description Dead-lettered deliveries sent again, as new deliveries with replay_of. */
                        resent_dead_letters: number;
                        /** @description Events the subscription never got (paused or disabled then) sent now. */
                        resent_missed: number;
                        /** @description Events of the window (at most, every type) the fan-out had not settled when the run started: not scanned, the fan-out delivers them (a later run recovers any it does not); null until the run ends. */
                        events_left_to_fanout: number | null;
                        error: string | null;
                        /**
                         * Format: date-time
                         * @description RFC 3339 UTC with milliseconds.
                         */
                        created_at: string;
                        /**
                         * Format: date-time
                         * @description RFC 3339 UTC with milliseconds.
                         */
                        updated_at: string;
                        completed_at: string | null;
                    };
                };
            };
            /** @description Validation error or a window outside the 30 days kept */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Missing or invalid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key lacks webhooks:manage */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body is over the route's limit (`payload_too_large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body is not Content-Type: application/json, or is encoded (`unsupported_media_type`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description NATS or the local read model is unavailable (`unavailable`); retry after the Retry-After header's seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getWebhooksRecoveriesById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The recovery */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        recovery_id: string;
                        subscription_id: string;
                        /**
                         * Format: date-time
                         * @description RFC 3339 UTC with milliseconds.
                         */
                        since: string;
                        /**
                         * Format: date-time
                         * @description RFC 3339 UTC with milliseconds.
                         */
                        until: string;
                        /**
                         * @description queued, running, then completed (or failed, with error).
                         * @enum {string}
                         */
                        status: "queued" | "running" | "completed" | "failed";
                        /** @description 1 for the first run of this window; a POST after a finished run starts the next. */
                        run: number;
                        /** @description Dead-lettered deliveries of the subscription in the window when the run was asked for. */
                        dead_letters_found: number;
                        /** @description Events of the window read so far. */
                        events_scanned: number;
                        /** @description Events the scan will read at most (null until it starts). */
                        events_total: number | null;
                        /** @description Dead-lettered deliveries sent again, as new deliveries with replay_of. */
                        resent_dead_letters: number;
                        /** @description Events the subscription never got (paused or disabled then) sent now. */
                        resent_missed: number;
                        /** @description Events of the window (at most, every type) the fan-out had not settled when the run started: not scanned, the fan-out delivers them (a later run recovers any it does not); null until the run ends. */
                        events_left_to_fanout: number | null;
                        error: string | null;
                        /**
                         * Format: date-time
                         * @description RFC 3339 UTC with milliseconds.
                         */
                        created_at: string;
                        /**
                         * Format: date-time
                         * @description RFC 3339 UTC with milliseconds.
                         */
                        updated_at: string;
                        completed_at: string | null;
                    };
                };
            };
            /** @description Missing or invalid API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key lacks webhooks:manage */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description NATS or the local read model is unavailable (`unavailable`); retry after the Retry-After header's seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    onInvestigationQueuedEvent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["InvestigationQueuedEvent"];
            };
        };
        responses: {
            /** @description Received (any 2xx); other answers are retried on the schedule */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onInvestigationStartedEvent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["InvestigationStartedEvent"];
            };
        };
        responses: {
            /** @description Received (any 2xx); other answers are retried on the schedule */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onInvestigationCompletedEvent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["InvestigationCompletedEvent"];
            };
        };
        responses: {
            /** @description Received (any 2xx); other answers are retried on the schedule */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onInvestigationFailedEvent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["InvestigationFailedEvent"];
            };
        };
        responses: {
            /** @description Received (any 2xx); other answers are retried on the schedule */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onInvestigationCancelledEvent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["InvestigationCancelledEvent"];
            };
        };
        responses: {
            /** @description Received (any 2xx); other answers are retried on the schedule */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onFindingDiscoveredEvent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["FindingDiscoveredEvent"];
            };
        };
        responses: {
            /** @description Received (any 2xx); other answers are retried on the schedule */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onAgentRegisteredEvent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AgentRegisteredEvent"];
            };
        };
        responses: {
            /** @description Received (any 2xx); other answers are retried on the schedule */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onAgentConnectedEvent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AgentConnectedEvent"];
            };
        };
        responses: {
            /** @description Received (any 2xx); other answers are retried on the schedule */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onAgentDisconnectedEvent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AgentDisconnectedEvent"];
            };
        };
        responses: {
            /** @description Received (any 2xx); other answers are retried on the schedule */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onSubscriptionDisabledEvent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SubscriptionDisabledEvent"];
            };
        };
        responses: {
            /** @description Received (any 2xx); other answers are retried on the schedule */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onDeliveryDeadLetteredEvent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DeliveryDeadLetteredEvent"];
            };
        };
        responses: {
            /** @description Received (any 2xx); other answers are retried on the schedule */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
