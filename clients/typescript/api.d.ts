// Generated from /openapi.json by openapi-typescript (`npm run client:write`); do not edit.
export interface paths {
    "/health/live": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The process is up (also while it sheds load) */
        get: operations["HealthLive"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health/ready": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The process can serve requests: its database answers a read within 900 ms and it is not shedding load */
        get: operations["HealthReady"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/auth": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Authenticate by email, cellphone, one-time password or guest token */
        post: operations["Authenticate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/auth/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Sign-out: ends the session whose bearer token the request carries (result true); that token is 401 from then on, its streams end within 60 s; an API key or no credential is 401 */
        delete: operations["EndSession"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/configs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Configuration entries, as an array or (mode=dictionary) keyed by key */
        get: operations["Configs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/agents/{agent_id}/templates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The agent's stored templates, optionally of one status, ordered by name and language */
        get: operations["AiTemplates"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/agents/{agent_id}/templates/refresh": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Pull every template from the provider, upsert them, return the stored list */
        post: operations["RefreshAiTemplates"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/agents/{agent_id}/templates/sync": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Reconcile the stored templates with the provider; one created|updated|deleted:NAME:LANG string per change */
        post: operations["SyncAiTemplates"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/agents/{agent_id}/templates/{template_id}/send": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send an approved template to a phone number */
        post: operations["SendAiTemplate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/agents/{agent_id}/translations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The agent's translations keyed by locale, or one locale's value ({} when none) */
        get: operations["AiTranslations"];
        /** Replace the agent's translations */
        put: operations["ReplaceAiTranslations"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Deep-merge translations per locale; null removes a key */
        patch: operations["UpdateAiTranslations"];
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/agents/{agent_id}/translations/copy": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Replace the agent's translations with another agent's of the same project */
        post: operations["CopyAiTranslations"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/agents/{provider_external_id}/conversations/current": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's active conversation with the agent, created when none is active */
        get: operations["AiCurrentConversation"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/agents/{provider_external_id}/conversations/current/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Public messages of the caller's active conversation with the agent, oldest first */
        get: operations["AiCurrentConversationMessages"];
        put?: never;
        /** Adds a public user message to the caller's current conversation, opening it when none is active */
        post: operations["AddAiCurrentConversationMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/conversations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Conversations with messages_count, last_message_at and the caller's unread_count: params, where (also unread, assignee_id "me", referral_source_id: the ad that brought the customer, source: history conversations only when named), orderBy (also -last_message_at, unread_count), q (contact or message content contains it), page, page_size */
        get: operations["AiConversations"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/conversations/{conversation_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One conversation with messages_count; params selects its fields */
        get: operations["AiConversation"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/conversations/{conversation_id}/messages/{message_id}/media": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A message's file: the bytes, with ETag, Range (206/416), If-None-Match (304); 409 while pending or failed */
        get: operations["AiMessageMedia"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/conversations/{conversation_id}/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every message of a conversation, public or not: fields, where (also source: api, whatsapp, business_app, history), orderBy, page, page_size */
        get: operations["AiConversationMessages"];
        put?: never;
        /** Adds a message (role, content, public, usage; type, payload and reply_to_id for locations, buttons, lists, files and reactions) to an active conversation; its usage is added to the conversation's */
        post: operations["AddAiConversationMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/conversations/{conversation_id}/close": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Closes an active conversation with a status_reason (completed, abandoned, failed) */
        post: operations["CloseAiConversation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/conversations/{conversation_id}/seen": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Moves the caller's seen mark forward to message_id (default: the newest message); result {unread_count}; emits nothing */
        post: operations["MarkAiConversationSeen"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/conversations/{conversation_id}/handoff": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A person takes an active conversation over (handler human; assignee_id, else the calling user) or hands it back to the AI (handler ai) */
        post: operations["HandoffAiConversation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/conversations/{conversation_id}/typing": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The agent is composing: WhatsApp marks the customer's newest message read and shows the typing indicator (at most one provider call per conversation and second); false for other conversations */
        post: operations["ShowAiConversationTyping"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/metrics/agents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** AI orders by agent (provider + provider_type) in the period */
        get: operations["MetricsAgents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/metrics/chats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Conversation counts and success rate, with comparison */
        get: operations["MetricsChats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/metrics/orders": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** AI orders and revenue by status group, with comparison */
        get: operations["MetricsOrders"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/metrics/overview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** AI orders, revenue and conversations by provider type, with comparison */
        get: operations["MetricsOverview"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/metrics/performance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Cost, response time, minutes saved, ROI and conversion, with comparison */
        get: operations["MetricsPerformance"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/metrics/products": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Top 10 products of AI orders in the period */
        get: operations["MetricsProducts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/metrics/series": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One metric over local hours, days, ISO weeks or months of a range, zero-filled */
        get: operations["MetricsSeries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/webhooks/whatsapp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Meta's webhook verification: hub.challenge as text/plain when hub.verify_token is a WhatsApp agent's verify_token */
        get: operations["WhatsAppWebhookChallenge"];
        put?: never;
        /** Meta's notifications (messages and statuses), signed with X-Hub-Signature-256 over the raw body */
        post: operations["ReceiveWhatsAppNotification"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/agents/{agent_id}/templates/sends": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The agent's template sends and their delivery status, newest first: where, orderBy, page, page_size */
        get: operations["AiTemplateSends"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The project's webhooks (at most 20; not paginated) */
        get: operations["AiWebhooks"];
        put?: never;
        /** Register a webhook; the answer alone carries its signing secret */
        post: operations["CreateAiWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/webhooks/{webhook_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete a webhook and its delivery log */
        delete: operations["DeleteAiWebhook"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/webhooks/{webhook_id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A webhook's deliveries, newest first: page, page_size */
        get: operations["AiWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Server-Sent Events of the project's AI module (resumable with Last-Event-ID) */
        get: operations["AiEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/agents/{provider_external_id}/conversations/current/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Server-Sent Events of the caller's current conversation: public messages and its closing */
        get: operations["AiCurrentConversationEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/agents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Agents (credentials shown as booleans only): params, where, orderBy, page, page_size */
        get: operations["AiAgents"];
        put?: never;
        /** Creates an agent; provider_external_id and a WhatsApp phone_number_id are unique in the project */
        post: operations["CreateAiAgent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/agents/{agent_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One agent; params selects its fields */
        get: operations["AiAgent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Changes the fields given; credentials merge key by key, a key set to null is removed; order_messages replaces the notices */
        patch: operations["UpdateAiAgent"];
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/agents/{agent_id}/credentials/check": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Reads the provider's phone number with the agent's credentials (display_phone_number, verified_name, quality_rating) */
        post: operations["CheckAiAgentCredentials"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/media": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Uploads a file to send in replies (multipart/form-data, one part `file` with its Content-Type): images (JPEG, PNG; 5 MB), video (MP4, 3GPP; 16 MB), audio (AAC, AMR, MP3, MP4, OGG; 16 MB), stickers (WebP; 500 KB), documents (PDF, text, Office; 100 MB) */
        post: operations["UploadAiMedia"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/media/{media_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An uploaded file's bytes (Content-Type, ETag, Range → 206, If-None-Match → 304); a customer's file is served by its message's route */
        get: operations["AiUploadedFile"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/replies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The project's saved replies: where, orderBy (id, shortcut, created_at, updated_at), q (shortcut or content contains it), page, page_size */
        get: operations["AiReplies"];
        put?: never;
        /** Saves a reply; shortcut is unique in the project */
        post: operations["CreateAiReply"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/replies/{reply_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Deletes a saved reply; answers it as it was */
        delete: operations["DeleteAiReply"];
        options?: never;
        head?: never;
        /** Changes the fields given of a saved reply */
        patch: operations["UpdateAiReply"];
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/businesses": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The businesses the caller may see (a business owner: theirs), by name, with their currency */
        get: operations["AiBusinesses"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/operators": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Colleagues who can see conversations (levels 0 and 2), by name; a business owner sees the administrators and those who share a business */
        get: operations["AiOperators"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/conversations/{conversation_id}/orders": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The orders placed in a conversation, newest first: {id, status, total (summary.total), business_id, created_at}; page, page_size */
        get: operations["AiConversationOrders"];
        put?: never;
        /** Places the cart at cart_version as an order, exactly once (a later place of that version answers the same order); 409 ERROR_AI_CART_CHANGED with the current cart as result when the version is stale or a line has a problem */
        post: operations["PlaceAiOrder"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/products": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The menu: where, orderBy, q (the name contains it, case and accents ignored), page, page_size */
        get: operations["AiProducts"];
        put?: never;
        /** Adds a product to a business's menu (retailer_id: its WhatsApp catalog id, unique per business) */
        post: operations["CreateAiProduct"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/products/{product_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One product */
        get: operations["AiProduct"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Changes the members given (a price rises, a dish runs out); the carts naming it are priced again */
        patch: operations["UpdateAiProduct"];
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/conversations/{conversation_id}/cart": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The conversation's cart, priced from the menu now (a new version when the menu changed it) */
        get: operations["AiCart"];
        /** Replaces the conversation's cart: lines by product_id or retailer_id, priced from the menu (never from the caller) */
        put: operations["SetAiCart"];
        post?: never;
        /** Empties the conversation's cart; result null */
        delete: operations["ClearAiCart"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/orders": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Orders of the project (level 2: of their businesses), newest first: where, orderBy, page, page_size */
        get: operations["AiOrders"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/orders/{order_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One order, with its lines and history */
        get: operations["AiOrder"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v400/{lang}/{project}/ai/orders/{order_id}/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Moves an order to one of the platform's statuses (1–23 but 13); the same status again changes nothing; a final order (1, 2, 5, 6, 10, 11, 12, 15, 16, 17) never moves */
        post: operations["MoveAiOrder"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    "conversation.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The event conversation.created, delivered to a registered webhook (and on the event streams)
         * @description POSTed as JSON to the URL of each webhook subscribed to the type. Verify it: `X-OrderGraph-Signature` is `sha256=` and the hex HMAC-SHA256, keyed with the webhook's secret, of `X-OrderGraph-Timestamp`, a period and the raw body. A 2xx within 10 s delivers it; anything else is retried with backoff (at least once: drop duplicates by `X-OrderGraph-Delivery`).
         */
        post: operations["webhook:conversation.created"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "conversation.closed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The event conversation.closed, delivered to a registered webhook (and on the event streams)
         * @description POSTed as JSON to the URL of each webhook subscribed to the type. Verify it: `X-OrderGraph-Signature` is `sha256=` and the hex HMAC-SHA256, keyed with the webhook's secret, of `X-OrderGraph-Timestamp`, a period and the raw body. A 2xx within 10 s delivers it; anything else is retried with backoff (at least once: drop duplicates by `X-OrderGraph-Delivery`).
         */
        post: operations["webhook:conversation.closed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "conversation.handoff": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The event conversation.handoff, delivered to a registered webhook (and on the event streams)
         * @description POSTed as JSON to the URL of each webhook subscribed to the type. Verify it: `X-OrderGraph-Signature` is `sha256=` and the hex HMAC-SHA256, keyed with the webhook's secret, of `X-OrderGraph-Timestamp`, a period and the raw body. A 2xx within 10 s delivers it; anything else is retried with backoff (at least once: drop duplicates by `X-OrderGraph-Delivery`).
         */
        post: operations["webhook:conversation.handoff"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "message.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The event message.created, delivered to a registered webhook (and on the event streams)
         * @description POSTed as JSON to the URL of each webhook subscribed to the type. Verify it: `X-OrderGraph-Signature` is `sha256=` and the hex HMAC-SHA256, keyed with the webhook's secret, of `X-OrderGraph-Timestamp`, a period and the raw body. A 2xx within 10 s delivers it; anything else is retried with backoff (at least once: drop duplicates by `X-OrderGraph-Delivery`).
         */
        post: operations["webhook:message.created"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "message.status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The event message.status, delivered to a registered webhook (and on the event streams)
         * @description POSTed as JSON to the URL of each webhook subscribed to the type. Verify it: `X-OrderGraph-Signature` is `sha256=` and the hex HMAC-SHA256, keyed with the webhook's secret, of `X-OrderGraph-Timestamp`, a period and the raw body. A 2xx within 10 s delivers it; anything else is retried with backoff (at least once: drop duplicates by `X-OrderGraph-Delivery`).
         */
        post: operations["webhook:message.status"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "message.updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The event message.updated, delivered to a registered webhook (and on the event streams)
         * @description POSTed as JSON to the URL of each webhook subscribed to the type. Verify it: `X-OrderGraph-Signature` is `sha256=` and the hex HMAC-SHA256, keyed with the webhook's secret, of `X-OrderGraph-Timestamp`, a period and the raw body. A 2xx within 10 s delivers it; anything else is retried with backoff (at least once: drop duplicates by `X-OrderGraph-Delivery`).
         */
        post: operations["webhook:message.updated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "template.sent": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The event template.sent, delivered to a registered webhook (and on the event streams)
         * @description POSTed as JSON to the URL of each webhook subscribed to the type. Verify it: `X-OrderGraph-Signature` is `sha256=` and the hex HMAC-SHA256, keyed with the webhook's secret, of `X-OrderGraph-Timestamp`, a period and the raw body. A 2xx within 10 s delivers it; anything else is retried with backoff (at least once: drop duplicates by `X-OrderGraph-Delivery`).
         */
        post: operations["webhook:template.sent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "template.status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The event template.status, delivered to a registered webhook (and on the event streams)
         * @description POSTed as JSON to the URL of each webhook subscribed to the type. Verify it: `X-OrderGraph-Signature` is `sha256=` and the hex HMAC-SHA256, keyed with the webhook's secret, of `X-OrderGraph-Timestamp`, a period and the raw body. A 2xx within 10 s delivers it; anything else is retried with backoff (at least once: drop duplicates by `X-OrderGraph-Delivery`).
         */
        post: operations["webhook:template.status"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "agent.updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The event agent.updated, delivered to a registered webhook (and on the event streams)
         * @description POSTed as JSON to the URL of each webhook subscribed to the type. Verify it: `X-OrderGraph-Signature` is `sha256=` and the hex HMAC-SHA256, keyed with the webhook's secret, of `X-OrderGraph-Timestamp`, a period and the raw body. A 2xx within 10 s delivers it; anything else is retried with backoff (at least once: drop duplicates by `X-OrderGraph-Delivery`).
         */
        post: operations["webhook:agent.updated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "cart.updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The event cart.updated, delivered to a registered webhook (and on the event streams)
         * @description POSTed as JSON to the URL of each webhook subscribed to the type. Verify it: `X-OrderGraph-Signature` is `sha256=` and the hex HMAC-SHA256, keyed with the webhook's secret, of `X-OrderGraph-Timestamp`, a period and the raw body. A 2xx within 10 s delivers it; anything else is retried with backoff (at least once: drop duplicates by `X-OrderGraph-Delivery`).
         */
        post: operations["webhook:cart.updated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "order.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The event order.created, delivered to a registered webhook (and on the event streams)
         * @description POSTed as JSON to the URL of each webhook subscribed to the type. Verify it: `X-OrderGraph-Signature` is `sha256=` and the hex HMAC-SHA256, keyed with the webhook's secret, of `X-OrderGraph-Timestamp`, a period and the raw body. A 2xx within 10 s delivers it; anything else is retried with backoff (at least once: drop duplicates by `X-OrderGraph-Delivery`).
         */
        post: operations["webhook:order.created"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "order.status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The event order.status, delivered to a registered webhook (and on the event streams)
         * @description POSTed as JSON to the URL of each webhook subscribed to the type. Verify it: `X-OrderGraph-Signature` is `sha256=` and the hex HMAC-SHA256, keyed with the webhook's secret, of `X-OrderGraph-Timestamp`, a period and the raw body. A 2xx within 10 s delivers it; anything else is retried with backoff (at least once: drop duplicates by `X-OrderGraph-Delivery`).
         */
        post: operations["webhook:order.status"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "order.updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The event order.updated, delivered to a registered webhook (and on the event streams)
         * @description POSTed as JSON to the URL of each webhook subscribed to the type. Verify it: `X-OrderGraph-Signature` is `sha256=` and the hex HMAC-SHA256, keyed with the webhook's secret, of `X-OrderGraph-Timestamp`, a period and the raw body. A 2xx within 10 s delivers it; anything else is retried with backoff (at least once: drop duplicates by `X-OrderGraph-Delivery`).
         */
        post: operations["webhook:order.updated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        /** @description A file the service keeps (served by GET /ai/conversations/{conversation_id}/messages/{message_id}/media) */
        Media: {
            /** @description Ours: random, not guessable, unique in the service */
            id: string;
            /**
             * @description pending while being downloaded, then stored or failed
             * @enum {string}
             */
            status: "pending" | "stored" | "failed";
            mime_type?: string | null;
            /** @description In bytes, once stored */
            size?: number | null;
            /** @description The hex SHA-256 of the stored bytes */
            sha256?: string | null;
            /** @description Why the file failed, else null */
            error?: string | null;
        };
        LocationPayload: {
            latitude: number;
            longitude: number;
            name?: string | null;
            address?: string | null;
            url?: string | null;
        };
        ContactsPayload: {
            /** @description Meta's contact cards as sent */
            contacts: Record<string, never>[];
        };
        InteractivePayload: {
            /** @enum {string} */
            reply_type: "button_reply" | "list_reply" | "nfm_reply";
            /** @description The tapped button or row */
            id?: string;
            title?: string;
            description?: string | null;
            /** @description A Flow's name */
            name?: string | null;
            /** @description A Flow's answer (null when WhatsApp's response_json was missing or not an object) */
            response?: Record<string, never> | null;
        } | {
            /** @enum {string} */
            type: "button" | "list" | "cta_url" | "location_request_message";
            header?: Record<string, never>;
            body?: Record<string, never>;
            footer?: Record<string, never>;
            action?: Record<string, never>;
        };
        /** @description A tap on a template's quick-reply button */
        ButtonPayload: {
            payload?: string | null;
            text?: string | null;
        };
        /** @description A template sent to the contact (its send shares the message id at the provider and its statuses) */
        TemplatePayload: {
            /**
             * Format: int64
             * @description The approved template sent
             */
            template_id: number;
            /** @description The template's name at the provider */
            name: string;
            language: string;
            /** @description Values of the body's placeholders, in order */
            body_parameters?: string[] | null;
        };
        OrderPayload: {
            catalog_id?: string | null;
            text?: string | null;
            items: {
                product_retailer_id?: string | null;
                quantity?: number | null;
                item_price?: number | null;
                currency?: string | null;
            }[];
        };
        ReactionPayload: {
            /** @description The reacted message's id at WhatsApp */
            external_id?: string;
            /**
             * Format: int64
             * @description Ours, or null when unknown
             */
            message_id: number | null;
            /** @description null (or empty) when the reaction was removed */
            emoji: string | null;
        };
        /** @description A notice of WhatsApp about the customer (the customer changed their number: the new number becomes the conversation's contact) */
        SystemPayload: {
            /** @description WhatsApp's system.type, e.g. user_changed_number */
            type?: string | null;
            /** @description The notice as WhatsApp wrote it (it names the old number) */
            body?: string | null;
            /** @description The new number, when given */
            wa_id?: string | null;
        };
        UnsupportedPayload: {
            /** @description WhatsApp's name of the type */
            type?: string | null;
            errors?: {
                code?: number | string | null;
                title?: string | null;
            }[] | null;
        };
        /** @description A received file (media, caption…), or a reply's media_id or link */
        ImagePayload: {
            /** @description A received file (null in a history import without one) */
            media?: components["schemas"]["Media"] | null;
            caption?: string | null;
            /** @description A reply: the uploaded file it sends */
            media_id?: string;
            /** @description A reply: the URL WhatsApp downloads */
            link?: string;
        };
        /** @description A received file (media, caption…), or a reply's media_id or link */
        AudioPayload: {
            /** @description A received file (null in a history import without one) */
            media?: components["schemas"]["Media"] | null;
            caption?: string | null;
            /** @description A voice note */
            voice?: boolean | null;
            /** @description A reply: the uploaded file it sends */
            media_id?: string;
            /** @description A reply: the URL WhatsApp downloads */
            link?: string;
        };
        /** @description A received file (media, caption…), or a reply's media_id or link */
        VideoPayload: {
            /** @description A received file (null in a history import without one) */
            media?: components["schemas"]["Media"] | null;
            caption?: string | null;
            /** @description A reply: the uploaded file it sends */
            media_id?: string;
            /** @description A reply: the URL WhatsApp downloads */
            link?: string;
        };
        /** @description A received file (media, caption…), or a reply's media_id or link */
        DocumentPayload: {
            /** @description A received file (null in a history import without one) */
            media?: components["schemas"]["Media"] | null;
            caption?: string | null;
            filename?: string | null;
            /** @description A reply: the uploaded file it sends */
            media_id?: string;
            /** @description A reply: the URL WhatsApp downloads */
            link?: string;
        };
        /** @description A received file (media, caption…), or a reply's media_id or link */
        StickerPayload: {
            /** @description A received file (null in a history import without one) */
            media?: components["schemas"]["Media"] | null;
            caption?: string | null;
            animated?: boolean | null;
            /** @description A reply: the uploaded file it sends */
            media_id?: string;
            /** @description A reply: the URL WhatsApp downloads */
            link?: string;
        };
        Pagination: {
            current_page: number;
            page_size: number;
            total_pages: number;
            total: number;
            from: number | null;
            to: number | null;
        };
        TextMessageRequest: {
            /** @enum {string} */
            role: "user" | "assistant" | "system" | "tool";
            /** @description Required for text; else computed when absent */
            content: string;
            public?: boolean;
            usage?: {
                cost?: number;
                response_time_ms?: number;
                input_tokens?: number;
                output_tokens?: number;
            };
            /**
             * Format: int64
             * @description A message of the same conversation
             */
            reply_to_id?: number | null;
            /**
             * @description Optional: a message without `type` is a text
             * @constant
             */
            type?: "text";
        };
        LocationMessageRequest: {
            /** @enum {string} */
            role: "user" | "assistant" | "system" | "tool";
            /** @description Computed from the payload when left out (the caption, the body's text, the location's name…) */
            content?: string;
            public?: boolean;
            usage?: {
                cost?: number;
                response_time_ms?: number;
                input_tokens?: number;
                output_tokens?: number;
            };
            /**
             * Format: int64
             * @description A message of the same conversation
             */
            reply_to_id?: number | null;
            /** @constant */
            type: "location";
            payload: {
                latitude: number;
                longitude: number;
                name?: string;
                address?: string;
            };
        };
        InteractiveMessageRequest: {
            /** @enum {string} */
            role: "user" | "assistant" | "system" | "tool";
            /** @description Computed from the payload when left out (the caption, the body's text, the location's name…) */
            content?: string;
            public?: boolean;
            usage?: {
                cost?: number;
                response_time_ms?: number;
                input_tokens?: number;
                output_tokens?: number;
            };
            /**
             * Format: int64
             * @description A message of the same conversation
             */
            reply_to_id?: number | null;
            /** @constant */
            type: "interactive";
            payload: {
                /** @constant */
                type: "button";
                body: {
                    text: string;
                };
                header?: {
                    /** @constant */
                    type: "text";
                    text: string;
                };
                footer?: {
                    text: string;
                };
                action: {
                    buttons: {
                        /** @constant */
                        type: "reply";
                        reply: {
                            /** @description Unique among the buttons */
                            id: string;
                            /** @description Unique among the buttons */
                            title: string;
                        };
                    }[];
                };
            } | {
                /** @constant */
                type: "list";
                body: {
                    text: string;
                };
                header?: {
                    /** @constant */
                    type: "text";
                    text: string;
                };
                footer?: {
                    text: string;
                };
                action: {
                    /** @description The label of the button that opens the list */
                    button: string;
                    sections: {
                        title?: string;
                        rows: {
                            /** @description Unique in the list */
                            id: string;
                            title: string;
                            description?: string;
                        }[];
                    }[];
                };
            } | {
                /** @constant */
                type: "cta_url";
                body: {
                    text: string;
                };
                header?: {
                    /** @constant */
                    type: "text";
                    text: string;
                };
                footer?: {
                    text: string;
                };
                action: {
                    /** @constant */
                    name: "cta_url";
                    parameters: {
                        display_text: string;
                        /** @description An https URL */
                        url: string;
                    };
                };
            } | {
                /** @constant */
                type: "location_request_message";
                body: {
                    text: string;
                };
                action: {
                    /** @constant */
                    name: "send_location";
                };
            };
        };
        ImageMessageRequest: {
            /** @enum {string} */
            role: "user" | "assistant" | "system" | "tool";
            /** @description Computed from the payload when left out (the caption, the body's text, the location's name…) */
            content?: string;
            public?: boolean;
            usage?: {
                cost?: number;
                response_time_ms?: number;
                input_tokens?: number;
                output_tokens?: number;
            };
            /**
             * Format: int64
             * @description A message of the same conversation
             */
            reply_to_id?: number | null;
            /** @constant */
            type: "image";
            payload: {
                /** @description A file uploaded with POST /ai/media (exactly one of media_id and link) */
                media_id?: string;
                /** @description An https URL WhatsApp downloads the file from (exactly one of media_id and link) */
                link?: string;
                caption?: string;
            };
        };
        VideoMessageRequest: {
            /** @enum {string} */
            role: "user" | "assistant" | "system" | "tool";
            /** @description Computed from the payload when left out (the caption, the body's text, the location's name…) */
            content?: string;
            public?: boolean;
            usage?: {
                cost?: number;
                response_time_ms?: number;
                input_tokens?: number;
                output_tokens?: number;
            };
            /**
             * Format: int64
             * @description A message of the same conversation
             */
            reply_to_id?: number | null;
            /** @constant */
            type: "video";
            payload: {
                /** @description A file uploaded with POST /ai/media (exactly one of media_id and link) */
                media_id?: string;
                /** @description An https URL WhatsApp downloads the file from (exactly one of media_id and link) */
                link?: string;
                caption?: string;
            };
        };
        DocumentMessageRequest: {
            /** @enum {string} */
            role: "user" | "assistant" | "system" | "tool";
            /** @description Computed from the payload when left out (the caption, the body's text, the location's name…) */
            content?: string;
            public?: boolean;
            usage?: {
                cost?: number;
                response_time_ms?: number;
                input_tokens?: number;
                output_tokens?: number;
            };
            /**
             * Format: int64
             * @description A message of the same conversation
             */
            reply_to_id?: number | null;
            /** @constant */
            type: "document";
            payload: {
                /** @description A file uploaded with POST /ai/media (exactly one of media_id and link) */
                media_id?: string;
                /** @description An https URL WhatsApp downloads the file from (exactly one of media_id and link) */
                link?: string;
                caption?: string;
                /** @description The name the customer sees */
                filename?: string;
            };
        };
        AudioMessageRequest: {
            /** @enum {string} */
            role: "user" | "assistant" | "system" | "tool";
            /** @description Computed from the payload when left out (the caption, the body's text, the location's name…) */
            content?: string;
            public?: boolean;
            usage?: {
                cost?: number;
                response_time_ms?: number;
                input_tokens?: number;
                output_tokens?: number;
            };
            /**
             * Format: int64
             * @description A message of the same conversation
             */
            reply_to_id?: number | null;
            /** @constant */
            type: "audio";
            payload: {
                /** @description A file uploaded with POST /ai/media (exactly one of media_id and link) */
                media_id?: string;
                /** @description An https URL WhatsApp downloads the file from (exactly one of media_id and link) */
                link?: string;
            };
        };
        StickerMessageRequest: {
            /** @enum {string} */
            role: "user" | "assistant" | "system" | "tool";
            /** @description Computed from the payload when left out (the caption, the body's text, the location's name…) */
            content?: string;
            public?: boolean;
            usage?: {
                cost?: number;
                response_time_ms?: number;
                input_tokens?: number;
                output_tokens?: number;
            };
            /**
             * Format: int64
             * @description A message of the same conversation
             */
            reply_to_id?: number | null;
            /** @constant */
            type: "sticker";
            payload: {
                /** @description A file uploaded with POST /ai/media (exactly one of media_id and link) */
                media_id?: string;
                /** @description An https URL WhatsApp downloads the file from (exactly one of media_id and link) */
                link?: string;
            };
        };
        ReactionMessageRequest: {
            /** @enum {string} */
            role: "user" | "assistant" | "system" | "tool";
            /** @description Computed from the payload when left out (the caption, the body's text, the location's name…) */
            content?: string;
            public?: boolean;
            usage?: {
                cost?: number;
                response_time_ms?: number;
                input_tokens?: number;
                output_tokens?: number;
            };
            /**
             * Format: int64
             * @description A message of the same conversation
             */
            reply_to_id?: number | null;
            /** @constant */
            type: "reaction";
            payload: {
                /**
                 * Format: int64
                 * @description A message of the same conversation
                 */
                message_id: number;
                /** @description One emoji; the empty string removes the reaction */
                emoji: string;
            };
        };
        Conversation: {
            /** Format: int64 */
            id: number;
            /** Format: int64 */
            agent_id: number;
            /** Format: int64 */
            user_id: number | null;
            /** Format: int64 */
            business_id: number | null;
            /** @enum {string} */
            status: "active" | "closed";
            /** @enum {string|null} */
            status_reason: "completed" | "abandoned" | "failed" | null;
            /** @description What producing the messages cost; members never given are absent */
            usage: {
                cost?: number;
                response_time_ms?: number;
                input_tokens?: number;
                output_tokens?: number;
            };
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            closed_at: string | null;
            /** Format: date-time */
            updated_at: string;
            contact: string | null;
            contact_user_id: string | null;
            contact_name: string | null;
            contact_username: string | null;
            /** Format: date-time */
            window_expires_at: string | null;
            /**
             * @description ai: the agent runtime answers; human: a person took it over
             * @enum {string}
             */
            handler: "ai" | "human";
            /** Format: int64 */
            assignee_id: number | null;
            messages_count: number | null;
            /** Format: date-time */
            last_message_at: string;
            unread_count: number | null;
            /** @description The Click-to-WhatsApp ad or post the customer came from (members WhatsApp did not send are null) */
            referral: {
                source_url?: string | null;
                source_id?: string | null;
                source_type?: string | null;
                body?: string | null;
                headline?: string | null;
                media_type?: string | null;
                image_url?: string | null;
                video_url?: string | null;
                thumbnail_url?: string | null;
                ctwa_clid?: string | null;
                welcome_message?: {
                    text?: string | null;
                } | null;
            } | null;
            /** @enum {string} */
            source: "live" | "history";
        };
        Message: {
            /** Format: int64 */
            id: number;
            /** Format: int64 */
            conversation_id: number;
            /** @enum {string} */
            role: "user" | "assistant" | "system" | "tool";
            content: string;
            public: boolean;
            /** Format: date-time */
            created_at: string;
            /** @description What producing the messages cost; members never given are absent */
            usage: {
                cost?: number;
                response_time_ms?: number;
                input_tokens?: number;
                output_tokens?: number;
            } | null;
            external_id: string | null;
            /**
             * @description A reply sent on WhatsApp: where it is; null for a message sent nowhere
             * @enum {string|null}
             */
            delivery_status: "pending" | "accepted" | "sent" | "delivered" | "read" | "failed" | null;
            delivery_error: string | null;
            /** Format: int64 */
            author_id: number | null;
            /** Format: int64 */
            reply_to_id: number | null;
            /** @enum {string} */
            source: "api" | "whatsapp" | "business_app" | "history";
            /** Format: date-time */
            edited_at: string | null;
            /** @description Earlier versions, oldest first (at most 20); edited_at is when that version was written (null for the original) */
            edits: {
                content: string;
                /** @description The typed content under WhatsApp's names; null for text */
                payload: components["schemas"]["ImagePayload"] | components["schemas"]["AudioPayload"] | components["schemas"]["VideoPayload"] | components["schemas"]["DocumentPayload"] | components["schemas"]["StickerPayload"] | components["schemas"]["LocationPayload"] | components["schemas"]["ContactsPayload"] | components["schemas"]["InteractivePayload"] | components["schemas"]["ButtonPayload"] | components["schemas"]["OrderPayload"] | components["schemas"]["ReactionPayload"] | components["schemas"]["UnsupportedPayload"] | components["schemas"]["TemplatePayload"] | components["schemas"]["SystemPayload"] | null;
                /** Format: date-time */
                edited_at: string | null;
            }[];
            /** Format: date-time */
            revoked_at: string | null;
            /** @description The Click-to-WhatsApp ad or post the customer came from (members WhatsApp did not send are null) */
            referral: {
                source_url?: string | null;
                source_id?: string | null;
                source_type?: string | null;
                body?: string | null;
                headline?: string | null;
                media_type?: string | null;
                image_url?: string | null;
                video_url?: string | null;
                thumbnail_url?: string | null;
                ctwa_clid?: string | null;
                welcome_message?: {
                    text?: string | null;
                } | null;
            } | null;
            /** @description The catalog product the customer asks about (WhatsApp's context.referred_product): product_retailer_id is the product's retailer_id in the agent's business */
            referred_product: {
                catalog_id: string | null;
                product_retailer_id: string | null;
            } | null;
            /** Format: int64 */
            order_id: number | null;
        } & ({
            /** @constant */
            type: "text";
            payload: null;
        } | {
            /** @constant */
            type: "image";
            payload: components["schemas"]["ImagePayload"] | null;
        } | {
            /** @constant */
            type: "audio";
            payload: components["schemas"]["AudioPayload"] | null;
        } | {
            /** @constant */
            type: "video";
            payload: components["schemas"]["VideoPayload"] | null;
        } | {
            /** @constant */
            type: "document";
            payload: components["schemas"]["DocumentPayload"] | null;
        } | {
            /** @constant */
            type: "sticker";
            payload: components["schemas"]["StickerPayload"] | null;
        } | {
            /** @constant */
            type: "location";
            payload: components["schemas"]["LocationPayload"] | null;
        } | {
            /** @constant */
            type: "contacts";
            payload: components["schemas"]["ContactsPayload"] | null;
        } | {
            /** @constant */
            type: "interactive";
            payload: components["schemas"]["InteractivePayload"] | null;
        } | {
            /** @constant */
            type: "button";
            payload: components["schemas"]["ButtonPayload"] | null;
        } | {
            /** @constant */
            type: "order";
            payload: components["schemas"]["OrderPayload"] | null;
        } | {
            /** @constant */
            type: "reaction";
            payload: components["schemas"]["ReactionPayload"] | null;
        } | {
            /** @constant */
            type: "unsupported";
            payload: components["schemas"]["UnsupportedPayload"] | null;
        } | {
            /** @constant */
            type: "template";
            payload: components["schemas"]["TemplatePayload"] | null;
        } | {
            /** @constant */
            type: "system";
            payload: components["schemas"]["SystemPayload"] | null;
        });
        TemplateSend: {
            /** Format: int64 */
            id: number;
            /** Format: int64 */
            agent_id: number;
            /** Format: int64 */
            template_id: number | null;
            message_id: string;
            to: string;
            /** @enum {string} */
            status: "accepted" | "sent" | "delivered" | "read" | "failed";
            error: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        Agent: {
            /** Format: int64 */
            id: number;
            /** Format: int64 */
            business_id: number | null;
            name: string;
            provider: string;
            provider_type: string;
            provider_external_id: string;
            enabled: boolean;
            disabled_reason: string | null;
            /** @description any JSON value (JSON) */
            history: unknown;
            /** @description The notice per order status code ("0" placed, "7" accepted, …) */
            order_messages: {
                [key: string]: {
                    text: string;
                    /** Format: int64 */
                    template_id: number | null;
                    locale: string | null;
                };
            } | null;
            /**
             * @example {
             *       "waba_id": true,
             *       "phone_number_id": true,
             *       "access_token": true,
             *       "app_secret": false,
             *       "verify_token": false,
             *       "dataset_id": false
             *     }
             */
            credentials: {
                [key: string]: boolean;
            };
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        Cart: {
            /** Format: int64 */
            conversation_id: number;
            /** Format: int64 */
            business_id: number;
            delivery_type: number;
            lines: {
                /** Format: int64 */
                product_id: number | null;
                retailer_id: string | null;
                name: string | null;
                quantity: number;
                price: number | null;
                total: number | null;
                comment: string | null;
            }[];
            address: string | null;
            location: {
                latitude: number;
                longitude: number;
            } | null;
            comment: string | null;
            currency: string;
            summary: {
                subtotal: number;
                discount: number;
                delivery_price: number;
                tax: number;
                total: number;
            };
            problems: {
                line: number;
                /** Format: int64 */
                product_id: number | null;
                retailer_id: string | null;
                reason: string;
            }[];
            version: number;
            /** Format: date-time */
            updated_at: string;
        };
        Order: {
            /** Format: int64 */
            id: number;
            uuid: string;
            /** Format: int64 */
            business_id: number | null;
            /** Format: int64 */
            conversation_id: number | null;
            /** Format: int64 */
            customer_id: number | null;
            status: number;
            delivery_type: number | null;
            paymethod: string | null;
            currency: string | null;
            summary: {
                subtotal: number | null;
                discount: number | null;
                delivery_price: number | null;
                tax: number | null;
                total: number | null;
            };
            products: {
                /** Format: int64 */
                product_id: number | null;
                name: string;
                quantity: number;
                price: number;
                total: number;
                comment: string | null;
            }[];
            address: string | null;
            location: {
                latitude: number;
                longitude: number;
            } | null;
            comment: string | null;
            history: {
                status: number;
                /** Format: date-time */
                at: string;
                by: number | null;
                reason: string | null;
            }[];
            conversion: {
                /**
                 * @description pending until the Purchase event is sent (sent) or given up (failed)
                 * @enum {string}
                 */
                status: "pending" | "sent" | "failed";
                error: string | null;
                /** Format: date-time */
                sent_at: string | null;
            } | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        ConversationEvent: {
            /** Format: int64 */
            id: number;
            /** Format: int64 */
            agent_id: number;
            /** Format: int64 */
            user_id: number | null;
            /** Format: int64 */
            business_id: number | null;
            /** @enum {string} */
            status: "active" | "closed";
            /** @enum {string|null} */
            status_reason: "completed" | "abandoned" | "failed" | null;
            /** @description What producing the messages cost; members never given are absent */
            usage: {
                cost?: number;
                response_time_ms?: number;
                input_tokens?: number;
                output_tokens?: number;
            };
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            closed_at: string | null;
            /** Format: date-time */
            updated_at: string;
            contact: string | null;
            contact_user_id: string | null;
            contact_name: string | null;
            contact_username: string | null;
            /** Format: date-time */
            window_expires_at: string | null;
            /**
             * @description ai: the agent runtime answers; human: a person took it over
             * @enum {string}
             */
            handler: "ai" | "human";
            /** Format: int64 */
            assignee_id: number | null;
            messages_count: number | null;
            /** Format: date-time */
            last_message_at: string;
            /** @description The Click-to-WhatsApp ad or post the customer came from (members WhatsApp did not send are null) */
            referral: {
                source_url?: string | null;
                source_id?: string | null;
                source_type?: string | null;
                body?: string | null;
                headline?: string | null;
                media_type?: string | null;
                image_url?: string | null;
                video_url?: string | null;
                thumbnail_url?: string | null;
                ctwa_clid?: string | null;
                welcome_message?: {
                    text?: string | null;
                } | null;
            } | null;
            /** @enum {string} */
            source: "live" | "history";
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
    HealthLive: {
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
                    /** @description The request's id */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                    };
                };
            };
        };
    };
    HealthReady: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready; `streams` says how many event streams are open against their bound (a process at the bound still serves requests) */
            200: {
                headers: {
                    /** @description The request's id */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                        streams: {
                            open: number;
                            max: number;
                            full: boolean;
                        };
                    };
                };
            };
            /** @description Not ready: the database did not answer in time, or the process sheds load (`reason`: what it is short of) */
            503: {
                headers: {
                    /** @description The request's id */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before asking again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "unavailable";
                        reason?: string | null;
                    };
                };
            };
        };
    };
    Authenticate: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    email?: string;
                    cellphone?: string;
                    country_phone_code?: string;
                    password?: string;
                    one_time_password?: string;
                    guest_token?: string;
                    device_code?: string;
                    platform?: string;
                    notification_app?: string;
                    notification_provider?: string;
                    notification_token?: string;
                    /** @enum {string} */
                    recaptcha_type?: "v2" | "v3";
                    verification_code?: string;
                };
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            /** Format: int64 */
                            id: number;
                            name: string | null;
                            lastname: string | null;
                            email: string | null;
                            cellphone: string | null;
                            country_phone_code: string | null;
                            level: number;
                            guest: boolean;
                            enabled: boolean;
                            session: {
                                access_token: string;
                                token_type: string;
                                expires_in: number;
                            };
                        };
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_RECAPTCHA";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED" | "ERROR_INVALID_CREDENTIALS";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PAYLOAD_TOO_LARGE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A content type the operation does not take */
            415: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_UNSUPPORTED_MEDIA_TYPE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    EndSession: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: boolean;
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    Configs: {
        parameters: {
            query?: {
                mode?: "dashboard" | "dictionary";
            };
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        /** @description An array of entries; with mode=dictionary, an object of the same entries keyed by key. */
                        result: {
                            /** Format: int64 */
                            id: number | null;
                            key: string;
                            value: string;
                            type: number;
                            public: boolean;
                            hidden: boolean;
                            protected: boolean;
                            description?: string | null;
                            plugin: string | null;
                        }[] | {
                            [key: string]: {
                                /** Format: int64 */
                                id: number | null;
                                key: string;
                                value: string;
                                type: number;
                                public: boolean;
                                hidden: boolean;
                                protected: boolean;
                                description?: string | null;
                                plugin: string | null;
                            };
                        };
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    AiTemplates: {
        parameters: {
            query?: {
                status?: string;
            };
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                agent_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            /** Format: int64 */
                            id: number;
                            /** Format: int64 */
                            agent_id: number;
                            external_id: string;
                            name: string;
                            language: string;
                            category: string | null;
                            status: string;
                            /** @description any JSON value (JSON) */
                            components: unknown;
                            /** Format: date-time */
                            updated_at: string;
                        }[];
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_AI_AGENT_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    RefreshAiTemplates: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
                /** @description Makes the write safe to retry: within 24 hours the same key with the same body answers the kept answer (with Idempotent-Replayed: true); with another body 400 ERROR_IDEMPOTENCY_KEY_REUSED; while the first still runs 409 ERROR_IDEMPOTENCY_IN_PROGRESS with Retry-After. A 5xx is not kept. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                agent_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            /** Format: int64 */
                            id: number;
                            /** Format: int64 */
                            agent_id: number;
                            external_id: string;
                            name: string;
                            language: string;
                            category: string | null;
                            status: string;
                            /** @description any JSON value (JSON) */
                            components: unknown;
                            /** Format: date-time */
                            updated_at: string;
                        }[];
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_IDEMPOTENCY_KEY_REUSED" | "ERROR_AI_AGENT_NOT_FOUND" | "ERROR_AI_PROVIDER_NOT_CONFIGURED" | "ERROR_AI_PROVIDER_REJECTED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A conflict with the current state */
            409: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_IDEMPOTENCY_IN_PROGRESS";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PAYLOAD_TOO_LARGE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A content type the operation does not take */
            415: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_UNSUPPORTED_MEDIA_TYPE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The provider did not answer as expected */
            502: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_PROVIDER_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    SyncAiTemplates: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
                /** @description Makes the write safe to retry: within 24 hours the same key with the same body answers the kept answer (with Idempotent-Replayed: true); with another body 400 ERROR_IDEMPOTENCY_KEY_REUSED; while the first still runs 409 ERROR_IDEMPOTENCY_IN_PROGRESS with Retry-After. A 5xx is not kept. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                agent_id: number;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    delete_removed?: boolean;
                };
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: string[];
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_IDEMPOTENCY_KEY_REUSED" | "ERROR_AI_AGENT_NOT_FOUND" | "ERROR_AI_PROVIDER_NOT_CONFIGURED" | "ERROR_AI_PROVIDER_REJECTED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A conflict with the current state */
            409: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_IDEMPOTENCY_IN_PROGRESS";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PAYLOAD_TOO_LARGE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A content type the operation does not take */
            415: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_UNSUPPORTED_MEDIA_TYPE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The provider did not answer as expected */
            502: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_PROVIDER_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    SendAiTemplate: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
                /** @description Makes the write safe to retry: within 24 hours the same key with the same body answers the kept answer (with Idempotent-Replayed: true); with another body 400 ERROR_IDEMPOTENCY_KEY_REUSED; while the first still runs 409 ERROR_IDEMPOTENCY_IN_PROGRESS with Retry-After. A 5xx is not kept. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                agent_id: number;
                template_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    to: string;
                    body_parameters?: string[];
                };
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            message_id: string;
                            to: string;
                            template: string;
                            language: string;
                            status: string;
                        };
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_IDEMPOTENCY_KEY_REUSED" | "ERROR_AI_AGENT_NOT_FOUND" | "ERROR_AI_TEMPLATE_NOT_FOUND" | "ERROR_AI_TEMPLATE_NOT_APPROVED" | "ERROR_AI_PROVIDER_NOT_CONFIGURED" | "ERROR_AI_PROVIDER_REJECTED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A conflict with the current state */
            409: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_IDEMPOTENCY_IN_PROGRESS";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PAYLOAD_TOO_LARGE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A content type the operation does not take */
            415: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_UNSUPPORTED_MEDIA_TYPE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The provider did not answer as expected */
            502: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_PROVIDER_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    AiTranslations: {
        parameters: {
            query?: {
                locale?: "en" | "es" | "fr" | "ar";
            };
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                agent_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        /** @description any JSON value (JSON) */
                        result: unknown;
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_AI_AGENT_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    ReplaceAiTranslations: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                agent_id: number;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    translations?: Record<string, never> | null;
                };
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            message: string;
                            /** @description any JSON value (JSON) */
                            translations: unknown;
                        };
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_AI_AGENT_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PAYLOAD_TOO_LARGE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A content type the operation does not take */
            415: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_UNSUPPORTED_MEDIA_TYPE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    UpdateAiTranslations: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                agent_id: number;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    translations?: Record<string, never> | null;
                };
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            message: string;
                            /** @description any JSON value (JSON) */
                            translations: unknown;
                        };
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_AI_AGENT_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PAYLOAD_TOO_LARGE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A content type the operation does not take */
            415: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_UNSUPPORTED_MEDIA_TYPE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    CopyAiTranslations: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
                /** @description Makes the write safe to retry: within 24 hours the same key with the same body answers the kept answer (with Idempotent-Replayed: true); with another body 400 ERROR_IDEMPOTENCY_KEY_REUSED; while the first still runs 409 ERROR_IDEMPOTENCY_IN_PROGRESS with Retry-After. A 5xx is not kept. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                agent_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: int64 */
                    source_agent_id: number;
                };
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            message: string;
                            /** @description any JSON value (JSON) */
                            translations: unknown;
                        };
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_IDEMPOTENCY_KEY_REUSED" | "ERROR_AI_AGENT_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A conflict with the current state */
            409: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_IDEMPOTENCY_IN_PROGRESS";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PAYLOAD_TOO_LARGE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A content type the operation does not take */
            415: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_UNSUPPORTED_MEDIA_TYPE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    AiCurrentConversation: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                provider_external_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            /** Format: int64 */
                            id: number;
                            /** Format: int64 */
                            agent_id: number;
                            /** Format: int64 */
                            user_id: number | null;
                            /** Format: int64 */
                            business_id: number | null;
                            /** @enum {string} */
                            status: "active" | "closed";
                            /** @enum {string|null} */
                            status_reason: "completed" | "abandoned" | "failed" | null;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            closed_at: string | null;
                            /** Format: date-time */
                            updated_at: string;
                            contact: string | null;
                            /** Format: date-time */
                            window_expires_at: string | null;
                            /**
                             * @description ai: the agent runtime answers; human: a person took it over
                             * @enum {string}
                             */
                            handler: "ai" | "human";
                            /** Format: int64 */
                            assignee_id: number | null;
                        };
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_AGENT_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A conflict with the current state */
            409: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_CONVERSATION_CONFLICT";
                        result: string[] | Record<string, never>;
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    AiCurrentConversationMessages: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                provider_external_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: components["schemas"]["Message"][];
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_AGENT_NOT_FOUND" | "ERROR_AI_CONVERSATION_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A conflict with the current state */
            409: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_CONVERSATION_CONFLICT";
                        result: string[] | Record<string, never>;
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    AddAiCurrentConversationMessage: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
                /** @description Makes the write safe to retry: within 24 hours the same key with the same body answers the kept answer (with Idempotent-Replayed: true); with another body 400 ERROR_IDEMPOTENCY_KEY_REUSED; while the first still runs 409 ERROR_IDEMPOTENCY_IN_PROGRESS with Retry-After. A 5xx is not kept. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                provider_external_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    content: string;
                };
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: components["schemas"]["Message"];
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_IDEMPOTENCY_KEY_REUSED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_AGENT_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A conflict with the current state */
            409: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_IDEMPOTENCY_IN_PROGRESS" | "ERROR_AI_CONVERSATION_CONFLICT";
                        result: string[] | Record<string, never>;
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PAYLOAD_TOO_LARGE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A content type the operation does not take */
            415: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_UNSUPPORTED_MEDIA_TYPE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    AiConversations: {
        parameters: {
            query?: {
                /** @description Comma-separated fields to answer (`id` always included): `id`, `agent_id`, `user_id`, `business_id`, `status`, `status_reason`, `usage`, `created_at`, `closed_at`, `updated_at`, `contact`, `contact_user_id`, `contact_name`, `contact_username`, `window_expires_at`, `handler`, `assignee_id`, `messages_count`, `last_message_at`, `unread_count`, `referral`, `source`. Relations (a dotted path selects inside: `agent.name`; a bare name its default fields): `agent`, `last_message`. Unknown: 400. */
                params?: string;
                /** @description JSON: an object of exact matches, AND-ed (an array value means any of), or an array of conditions {"attribute", "value"} where value is a literal or {"condition", "value"} with condition one of `=`, `!=`, `<`, `<=`, `>`, `>=`, `ilike`, `in`, `null`, `not_null` (`in` takes an array; `null` and `not_null` take no value); a group is {"conditions": […], "conector": "AND"|"OR"}. Attributes: `id` (id, a 64-bit integer), `agent_id` (id, a 64-bit integer), `user_id` (id, a 64-bit integer), `business_id` (id, a 64-bit integer), `status` (text), `status_reason` (text), `created_at` (timestamp (ISO 8601 or YYYY-MM-DD HH:mm:ss, UTC without a zone)), `closed_at` (timestamp (ISO 8601 or YYYY-MM-DD HH:mm:ss, UTC without a zone)), `handler` (text), `assignee_id` (id, a 64-bit integer), `last_message_at` (timestamp (ISO 8601 or YYYY-MM-DD HH:mm:ss, UTC without a zone)), `unread` (boolean), `unread_count` (integer), `messages_count` (integer), `referral_source_id` (text), `contact` (text), `contact_user_id` (text), `contact_username` (text), `source` (text). A group naming the relation `agent` ({"attribute": "agent", "conditions": […]}) filters on its `id` (id, a 64-bit integer), `name` (text), `provider` (text), `provider_type` (text), `provider_external_id` (text), `enabled` (boolean), `business_id` (id, a 64-bit integer). `assignee_id` also takes "me" (the calling user); `unread` is true for conversations with messages the caller has not seen. Any other attribute, or malformed JSON: 400 naming the attributes allowed. */
                where?: string;
                /** @description Comma-separated attributes, `-` for descending (default and last key: `id` ascending). Attributes: `id`, `agent_id`, `user_id`, `business_id`, `status`, `status_reason`, `created_at`, `closed_at`, `handler`, `assignee_id`, `last_message_at`, `unread`, `unread_count`, `messages_count`, `referral_source_id`, `contact`, `contact_user_id`, `contact_username`, `source`. Any other: 400 naming the attributes allowed. */
                orderBy?: string;
                /** @description Page number, from 1 */
                page?: number;
                /** @description Rows per page, 1 to 100 */
                page_size?: number;
                /** @description Only conversations whose contact, contact name or a message's content contains this text (case-insensitive) */
                q?: string;
            };
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. With `params` (or `fields`), only the fields selected (and `id`). */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            /** Format: int64 */
                            id: number;
                            /** Format: int64 */
                            agent_id?: number;
                            /** Format: int64 */
                            user_id?: number | null;
                            /** Format: int64 */
                            business_id?: number | null;
                            /** @enum {string} */
                            status?: "active" | "closed";
                            /** @enum {string|null} */
                            status_reason?: "completed" | "abandoned" | "failed" | null;
                            /** @description What producing the messages cost; members never given are absent */
                            usage?: {
                                cost?: number;
                                response_time_ms?: number;
                                input_tokens?: number;
                                output_tokens?: number;
                            };
                            /** Format: date-time */
                            created_at?: string;
                            /** Format: date-time */
                            closed_at?: string | null;
                            /** Format: date-time */
                            updated_at?: string;
                            contact?: string | null;
                            contact_user_id?: string | null;
                            contact_name?: string | null;
                            contact_username?: string | null;
                            /** Format: date-time */
                            window_expires_at?: string | null;
                            /**
                             * @description ai: the agent runtime answers; human: a person took it over
                             * @enum {string}
                             */
                            handler?: "ai" | "human";
                            /** Format: int64 */
                            assignee_id?: number | null;
                            messages_count: number | null;
                            /** Format: date-time */
                            last_message_at?: string;
                            unread_count?: number | null;
                            /** @description The Click-to-WhatsApp ad or post the customer came from (members WhatsApp did not send are null) */
                            referral?: {
                                source_url?: string | null;
                                source_id?: string | null;
                                source_type?: string | null;
                                body?: string | null;
                                headline?: string | null;
                                media_type?: string | null;
                                image_url?: string | null;
                                video_url?: string | null;
                                thumbnail_url?: string | null;
                                ctwa_clid?: string | null;
                                welcome_message?: {
                                    text?: string | null;
                                } | null;
                            } | null;
                            /** @enum {string} */
                            source?: "live" | "history";
                        }[];
                        pagination: components["schemas"]["Pagination"];
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    AiConversation: {
        parameters: {
            query?: {
                /** @description Comma-separated fields to answer (`id` always included): `id`, `agent_id`, `user_id`, `business_id`, `status`, `status_reason`, `usage`, `created_at`, `closed_at`, `updated_at`, `contact`, `contact_user_id`, `contact_name`, `contact_username`, `window_expires_at`, `handler`, `assignee_id`, `messages_count`, `last_message_at`, `unread_count`, `referral`, `source`. Unknown: 400. */
                params?: string;
            };
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                conversation_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. With `params` (or `fields`), only the fields selected (and `id`). */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            /** Format: int64 */
                            id: number;
                            /** Format: int64 */
                            agent_id?: number;
                            /** Format: int64 */
                            user_id?: number | null;
                            /** Format: int64 */
                            business_id?: number | null;
                            /** @enum {string} */
                            status?: "active" | "closed";
                            /** @enum {string|null} */
                            status_reason?: "completed" | "abandoned" | "failed" | null;
                            /** @description What producing the messages cost; members never given are absent */
                            usage?: {
                                cost?: number;
                                response_time_ms?: number;
                                input_tokens?: number;
                                output_tokens?: number;
                            };
                            /** Format: date-time */
                            created_at?: string;
                            /** Format: date-time */
                            closed_at?: string | null;
                            /** Format: date-time */
                            updated_at?: string;
                            contact?: string | null;
                            contact_user_id?: string | null;
                            contact_name?: string | null;
                            contact_username?: string | null;
                            /** Format: date-time */
                            window_expires_at?: string | null;
                            /**
                             * @description ai: the agent runtime answers; human: a person took it over
                             * @enum {string}
                             */
                            handler?: "ai" | "human";
                            /** Format: int64 */
                            assignee_id?: number | null;
                            messages_count: number | null;
                            /** Format: date-time */
                            last_message_at?: string;
                            unread_count?: number | null;
                            /** @description The Click-to-WhatsApp ad or post the customer came from (members WhatsApp did not send are null) */
                            referral?: {
                                source_url?: string | null;
                                source_id?: string | null;
                                source_type?: string | null;
                                body?: string | null;
                                headline?: string | null;
                                media_type?: string | null;
                                image_url?: string | null;
                                video_url?: string | null;
                                thumbnail_url?: string | null;
                                ctwa_clid?: string | null;
                                welcome_message?: {
                                    text?: string | null;
                                } | null;
                            } | null;
                            /** @enum {string} */
                            source?: "live" | "history";
                        };
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_AI_CONVERSATION_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    AiMessageMedia: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
                /** @description One byte range (bytes=a-b, a-, -n): 206; unsatisfiable: 416 */
                Range?: string;
                /** @description The ETag of a copy held: 304 when unchanged */
                "If-None-Match"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                conversation_id: number;
                message_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file's bytes, with its own Content-Type */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    ETag?: string;
                    "Accept-Ranges"?: "bytes";
                    /** @description inline for pictures, audio, video and PDF; else attachment with the file name */
                    "Content-Disposition"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "*/*": Blob;
                };
            };
            /** @description The requested byte range */
            206: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    ETag?: string;
                    "Accept-Ranges"?: "bytes";
                    /** @description inline for pictures, audio, video and PDF; else attachment with the file name */
                    "Content-Disposition"?: string;
                    /** @description bytes a-b/size */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "*/*": Blob;
                };
            };
            /** @description If-None-Match names the current ETag: no body */
            304: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_AI_CONVERSATION_NOT_FOUND" | "ERROR_AI_MESSAGE_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A conflict with the current state */
            409: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MEDIA_PENDING" | "ERROR_AI_MEDIA_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The Range cannot be satisfied: no body */
            416: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description bytes *\/size */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The provider did not answer as expected */
            502: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MEDIA_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    AiConversationMessages: {
        parameters: {
            query?: {
                /** @description Comma-separated fields to answer (`id` always included): `id`, `conversation_id`, `role`, `content`, `public`, `created_at`, `usage`, `external_id`, `delivery_status`, `delivery_error`, `author_id`, `type`, `payload`, `reply_to_id`, `source`, `edited_at`, `edits`, `revoked_at`, `referral`, `referred_product`, `order_id`. Unknown: 400. */
                fields?: string;
                /** @description Comma-separated fields to answer (`id` always included): `id`, `conversation_id`, `role`, `content`, `public`, `created_at`, `usage`, `external_id`, `delivery_status`, `delivery_error`, `author_id`, `type`, `payload`, `reply_to_id`, `source`, `edited_at`, `edits`, `revoked_at`, `referral`, `referred_product`, `order_id`. Here `params` means what `fields` means; when both are sent, `fields` wins. Unknown: 400. */
                params?: string;
                /** @description JSON: an object of exact matches, AND-ed (an array value means any of), or an array of conditions {"attribute", "value"} where value is a literal or {"condition", "value"} with condition one of `=`, `!=`, `<`, `<=`, `>`, `>=`, `ilike`, `in`, `null`, `not_null` (`in` takes an array; `null` and `not_null` take no value); a group is {"conditions": […], "conector": "AND"|"OR"}. Attributes: `id` (id, a 64-bit integer), `role` (text), `public` (boolean), `created_at` (timestamp (ISO 8601 or YYYY-MM-DD HH:mm:ss, UTC without a zone)), `delivery_status` (text), `type` (text), `reply_to_id` (id, a 64-bit integer), `source` (text). Any other attribute, or malformed JSON: 400 naming the attributes allowed. */
                where?: string;
                /** @description Comma-separated attributes, `-` for descending (default and last key: `id` ascending). Attributes: `id`, `role`, `public`, `created_at`, `delivery_status`, `type`, `reply_to_id`, `source`. Any other: 400 naming the attributes allowed. */
                orderBy?: string;
                /** @description Page number, from 1 */
                page?: number;
                /** @description Rows per page, 1 to 100 */
                page_size?: number;
            };
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                conversation_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. With `params` (or `fields`), only the fields selected (and `id`). */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            /** Format: int64 */
                            id: number;
                            /** Format: int64 */
                            conversation_id?: number;
                            /** @enum {string} */
                            role?: "user" | "assistant" | "system" | "tool";
                            content?: string;
                            public?: boolean;
                            /** Format: date-time */
                            created_at?: string;
                            /** @description What producing the messages cost; members never given are absent */
                            usage?: {
                                cost?: number;
                                response_time_ms?: number;
                                input_tokens?: number;
                                output_tokens?: number;
                            } | null;
                            external_id?: string | null;
                            /**
                             * @description A reply sent on WhatsApp: where it is; null for a message sent nowhere
                             * @enum {string|null}
                             */
                            delivery_status?: "pending" | "accepted" | "sent" | "delivered" | "read" | "failed" | null;
                            delivery_error?: string | null;
                            /** Format: int64 */
                            author_id?: number | null;
                            /**
                             * @description What the message is; `payload` has the shape of its type
                             * @enum {string}
                             */
                            type?: "text" | "image" | "audio" | "video" | "document" | "sticker" | "location" | "contacts" | "interactive" | "button" | "order" | "reaction" | "unsupported" | "template" | "system";
                            /** @description The typed content under WhatsApp's names; null for text */
                            payload?: components["schemas"]["ImagePayload"] | components["schemas"]["AudioPayload"] | components["schemas"]["VideoPayload"] | components["schemas"]["DocumentPayload"] | components["schemas"]["StickerPayload"] | components["schemas"]["LocationPayload"] | components["schemas"]["ContactsPayload"] | components["schemas"]["InteractivePayload"] | components["schemas"]["ButtonPayload"] | components["schemas"]["OrderPayload"] | components["schemas"]["ReactionPayload"] | components["schemas"]["UnsupportedPayload"] | components["schemas"]["TemplatePayload"] | components["schemas"]["SystemPayload"] | null;
                            /** Format: int64 */
                            reply_to_id?: number | null;
                            /** @enum {string} */
                            source?: "api" | "whatsapp" | "business_app" | "history";
                            /** Format: date-time */
                            edited_at?: string | null;
                            /** @description Earlier versions, oldest first (at most 20); edited_at is when that version was written (null for the original) */
                            edits?: {
                                content: string;
                                /** @description The typed content under WhatsApp's names; null for text */
                                payload: components["schemas"]["ImagePayload"] | components["schemas"]["AudioPayload"] | components["schemas"]["VideoPayload"] | components["schemas"]["DocumentPayload"] | components["schemas"]["StickerPayload"] | components["schemas"]["LocationPayload"] | components["schemas"]["ContactsPayload"] | components["schemas"]["InteractivePayload"] | components["schemas"]["ButtonPayload"] | components["schemas"]["OrderPayload"] | components["schemas"]["ReactionPayload"] | components["schemas"]["UnsupportedPayload"] | components["schemas"]["TemplatePayload"] | components["schemas"]["SystemPayload"] | null;
                                /** Format: date-time */
                                edited_at: string | null;
                            }[];
                            /** Format: date-time */
                            revoked_at?: string | null;
                            /** @description The Click-to-WhatsApp ad or post the customer came from (members WhatsApp did not send are null) */
                            referral?: {
                                source_url?: string | null;
                                source_id?: string | null;
                                source_type?: string | null;
                                body?: string | null;
                                headline?: string | null;
                                media_type?: string | null;
                                image_url?: string | null;
                                video_url?: string | null;
                                thumbnail_url?: string | null;
                                ctwa_clid?: string | null;
                                welcome_message?: {
                                    text?: string | null;
                                } | null;
                            } | null;
                            /** @description The catalog product the customer asks about (WhatsApp's context.referred_product): product_retailer_id is the product's retailer_id in the agent's business */
                            referred_product?: {
                                catalog_id: string | null;
                                product_retailer_id: string | null;
                            } | null;
                            /** Format: int64 */
                            order_id?: number | null;
                        }[];
                        pagination: components["schemas"]["Pagination"];
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_AI_CONVERSATION_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    AddAiConversationMessage: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
                /** @description Makes the write safe to retry: within 24 hours the same key with the same body answers the kept answer (with Idempotent-Replayed: true); with another body 400 ERROR_IDEMPOTENCY_KEY_REUSED; while the first still runs 409 ERROR_IDEMPOTENCY_IN_PROGRESS with Retry-After. A 5xx is not kept. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                conversation_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TextMessageRequest"] | components["schemas"]["LocationMessageRequest"] | components["schemas"]["InteractiveMessageRequest"] | components["schemas"]["ImageMessageRequest"] | components["schemas"]["VideoMessageRequest"] | components["schemas"]["DocumentMessageRequest"] | components["schemas"]["AudioMessageRequest"] | components["schemas"]["StickerMessageRequest"] | components["schemas"]["ReactionMessageRequest"];
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: components["schemas"]["Message"];
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_IDEMPOTENCY_KEY_REUSED" | "ERROR_AI_CONVERSATION_NOT_FOUND" | "ERROR_AI_CONVERSATION_CLOSED" | "ERROR_AI_MESSAGE_NOT_FOUND" | "ERROR_WHATSAPP_WINDOW_CLOSED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A conflict with the current state */
            409: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_IDEMPOTENCY_IN_PROGRESS" | "ERROR_AI_CONVERSATION_HANDED_OFF";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PAYLOAD_TOO_LARGE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A content type the operation does not take */
            415: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_UNSUPPORTED_MEDIA_TYPE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    CloseAiConversation: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
                /** @description Makes the write safe to retry: within 24 hours the same key with the same body answers the kept answer (with Idempotent-Replayed: true); with another body 400 ERROR_IDEMPOTENCY_KEY_REUSED; while the first still runs 409 ERROR_IDEMPOTENCY_IN_PROGRESS with Retry-After. A 5xx is not kept. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                conversation_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    status_reason: "completed" | "abandoned" | "failed";
                };
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: components["schemas"]["Conversation"];
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_IDEMPOTENCY_KEY_REUSED" | "ERROR_AI_CONVERSATION_NOT_FOUND" | "ERROR_AI_CONVERSATION_CLOSED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A conflict with the current state */
            409: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_IDEMPOTENCY_IN_PROGRESS";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PAYLOAD_TOO_LARGE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A content type the operation does not take */
            415: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_UNSUPPORTED_MEDIA_TYPE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    MarkAiConversationSeen: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
                /** @description Makes the write safe to retry: within 24 hours the same key with the same body answers the kept answer (with Idempotent-Replayed: true); with another body 400 ERROR_IDEMPOTENCY_KEY_REUSED; while the first still runs 409 ERROR_IDEMPOTENCY_IN_PROGRESS with Retry-After. A 5xx is not kept. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                conversation_id: number;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** Format: int64 */
                    message_id?: number | null;
                };
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            unread_count: number;
                        };
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_IDEMPOTENCY_KEY_REUSED" | "ERROR_AI_CONVERSATION_NOT_FOUND" | "ERROR_AI_MESSAGE_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A conflict with the current state */
            409: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_IDEMPOTENCY_IN_PROGRESS";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PAYLOAD_TOO_LARGE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A content type the operation does not take */
            415: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_UNSUPPORTED_MEDIA_TYPE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    HandoffAiConversation: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
                /** @description Makes the write safe to retry: within 24 hours the same key with the same body answers the kept answer (with Idempotent-Replayed: true); with another body 400 ERROR_IDEMPOTENCY_KEY_REUSED; while the first still runs 409 ERROR_IDEMPOTENCY_IN_PROGRESS with Retry-After. A 5xx is not kept. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                conversation_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    handler: "ai" | "human";
                    /** Format: int64 */
                    assignee_id?: number | null;
                };
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: components["schemas"]["Conversation"];
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_IDEMPOTENCY_KEY_REUSED" | "ERROR_AI_CONVERSATION_NOT_FOUND" | "ERROR_AI_CONVERSATION_CLOSED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A conflict with the current state */
            409: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_IDEMPOTENCY_IN_PROGRESS";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PAYLOAD_TOO_LARGE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A content type the operation does not take */
            415: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_UNSUPPORTED_MEDIA_TYPE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    ShowAiConversationTyping: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
                /** @description Makes the write safe to retry: within 24 hours the same key with the same body answers the kept answer (with Idempotent-Replayed: true); with another body 400 ERROR_IDEMPOTENCY_KEY_REUSED; while the first still runs 409 ERROR_IDEMPOTENCY_IN_PROGRESS with Retry-After. A 5xx is not kept. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                conversation_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: boolean;
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_IDEMPOTENCY_KEY_REUSED" | "ERROR_AI_CONVERSATION_NOT_FOUND" | "ERROR_AI_CONVERSATION_CLOSED" | "ERROR_WHATSAPP_WINDOW_CLOSED" | "ERROR_AI_PROVIDER_NOT_CONFIGURED" | "ERROR_AI_PROVIDER_REJECTED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A conflict with the current state */
            409: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_IDEMPOTENCY_IN_PROGRESS" | "ERROR_AI_CONVERSATION_HANDED_OFF";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PAYLOAD_TOO_LARGE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A content type the operation does not take */
            415: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_UNSUPPORTED_MEDIA_TYPE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The provider did not answer as expected */
            502: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_PROVIDER_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    MetricsAgents: {
        parameters: {
            query?: {
                business_id?: number;
                franchise_id?: number;
                month?: string;
                timezone?: string;
                timezone_offset?: number;
            };
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            provider: string;
                            provider_type: string;
                            orders: number;
                            revenue: number;
                            participation_percentage: number;
                        }[];
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_BUSINESS_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    MetricsChats: {
        parameters: {
            query?: {
                business_id?: number;
                franchise_id?: number;
                month?: string;
                timezone?: string;
                timezone_offset?: number;
            };
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            active_chats: {
                                current: number;
                            };
                            total_chats: {
                                current: number;
                                previous: number;
                                change_percentage: number;
                            };
                            completed_chats: {
                                current: number;
                                previous: number;
                                change_percentage: number;
                            };
                            abandoned_chats: {
                                current: number;
                                previous: number;
                                change_percentage: number;
                            };
                            failed_chats: {
                                current: number;
                                previous: number;
                                change_percentage: number;
                            };
                            success_rate: {
                                current: number;
                                previous: number;
                                change_percentage: number;
                            };
                        };
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_BUSINESS_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    MetricsOrders: {
        parameters: {
            query?: {
                business_id?: number;
                franchise_id?: number;
                month?: string;
                timezone?: string;
                timezone_offset?: number;
            };
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            total_orders: {
                                current: number;
                                previous: number;
                                change_percentage: number;
                            };
                            total_revenue: {
                                current: number;
                                previous: number;
                                change_percentage: number;
                            };
                            average_revenue: {
                                current: number;
                                previous: number;
                                change_percentage: number;
                            };
                            completed_orders: {
                                current: number;
                                previous: number;
                                change_percentage: number;
                            };
                            cancelled_orders: {
                                current: number;
                                previous: number;
                                change_percentage: number;
                            };
                            active_orders: {
                                current: number;
                                previous: number;
                                change_percentage: number;
                            };
                        };
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_BUSINESS_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    MetricsOverview: {
        parameters: {
            query?: {
                business_id?: number;
                franchise_id?: number;
                month?: string;
                timezone?: string;
                timezone_offset?: number;
            };
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            orders: {
                                current: number;
                                previous: number;
                                change_percentage: number;
                            };
                            revenue: {
                                total: {
                                    current: number;
                                    previous: number;
                                    change_percentage: number;
                                };
                                average: {
                                    current: number;
                                    previous: number;
                                    change_percentage: number;
                                };
                            };
                            conversations: {
                                total: {
                                    current: number;
                                    previous: number;
                                    change_percentage: number;
                                };
                                by_provider_type: {
                                    provider_type: string;
                                    current: number;
                                    previous: number;
                                    change_percentage: number;
                                }[];
                            };
                        };
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_BUSINESS_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    MetricsPerformance: {
        parameters: {
            query?: {
                business_id?: number;
                franchise_id?: number;
                month?: string;
                timezone?: string;
                timezone_offset?: number;
            };
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            average_cost: {
                                current: number;
                                previous: number;
                                change_percentage: number;
                            };
                            average_response_time_ms: {
                                current: number;
                                previous: number;
                                change_percentage: number;
                            };
                            human_minutes_saved: {
                                current: number;
                                previous: number;
                                change_percentage: number;
                            };
                            roi: {
                                current: number;
                                previous: number;
                                change_percentage: number;
                            };
                            conversion_rate: {
                                current: number;
                                previous: number;
                                change_percentage: number;
                            };
                        };
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_BUSINESS_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    MetricsProducts: {
        parameters: {
            query?: {
                business_id?: number;
                franchise_id?: number;
                month?: string;
                timezone?: string;
                timezone_offset?: number;
            };
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            /** Format: int64 */
                            product_id: number | null;
                            name: string;
                            times_sold: number;
                            orders: number;
                            revenue: number;
                        }[];
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_BUSINESS_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    MetricsSeries: {
        parameters: {
            query: {
                metric: "orders" | "revenue" | "conversations" | "completed_chats" | "abandoned_chats" | "failed_chats" | "success_rate" | "average_cost" | "conversion_rate";
                group_by: "hour" | "day" | "week" | "month";
                from: string;
                to: string;
                business_id?: number;
                franchise_id?: number;
                timezone?: string;
                timezone_offset?: number;
            };
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            metric: string;
                            group_by: string;
                            timezone: string;
                            points: {
                                start: string;
                                value: number;
                            }[];
                        };
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_BUSINESS_NOT_FOUND" | "ERROR_AI_AGENT_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    WhatsAppWebhookChallenge: {
        parameters: {
            query?: {
                "hub.mode"?: string;
                "hub.verify_token"?: string;
                "hub.challenge"?: string;
            };
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description hub.challenge as sent, as text */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_WEBHOOK_VERIFICATION_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    ReceiveWhatsAppNotification: {
        parameters: {
            query?: never;
            header: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
                /** @description Makes the write safe to retry: within 24 hours the same key with the same body answers the kept answer (with Idempotent-Replayed: true); with another body 400 ERROR_IDEMPOTENCY_KEY_REUSED; while the first still runs 409 ERROR_IDEMPOTENCY_IN_PROGRESS with Retry-After. A 5xx is not kept. */
                "Idempotency-Key"?: string;
                /** @description sha256= and the hex HMAC-SHA256 of the raw body under the agent's app secret; anything else is 401 ERROR_WEBHOOK_SIGNATURE */
                "X-Hub-Signature-256": string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
            };
            cookie?: never;
        };
        /** @description WhatsApp's notification as Meta sends it, signed over its raw bytes */
        requestBody: {
            content: {
                "application/json": {
                    object?: string;
                    entry?: Record<string, never>[];
                };
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            messages: number;
                            statuses: number;
                        };
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_IDEMPOTENCY_KEY_REUSED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED" | "ERROR_WEBHOOK_SIGNATURE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A conflict with the current state */
            409: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_IDEMPOTENCY_IN_PROGRESS";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PAYLOAD_TOO_LARGE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A content type the operation does not take */
            415: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_UNSUPPORTED_MEDIA_TYPE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    AiTemplateSends: {
        parameters: {
            query?: {
                /** @description JSON: an object of exact matches, AND-ed (an array value means any of), or an array of conditions {"attribute", "value"} where value is a literal or {"condition", "value"} with condition one of `=`, `!=`, `<`, `<=`, `>`, `>=`, `ilike`, `in`, `null`, `not_null` (`in` takes an array; `null` and `not_null` take no value); a group is {"conditions": […], "conector": "AND"|"OR"}. Attributes: `status` (text), `template_id` (id, a 64-bit integer), `to` (text), `created_at` (timestamp (ISO 8601 or YYYY-MM-DD HH:mm:ss, UTC without a zone)). Any other attribute, or malformed JSON: 400 naming the attributes allowed. */
                where?: string;
                /** @description Comma-separated attributes, `-` for descending (default and last key: `id` ascending). Attributes: `id`, `created_at`, `status`. Any other: 400 naming the attributes allowed. */
                orderBy?: string;
                /** @description Page number, from 1 */
                page?: number;
                /** @description Rows per page, 1 to 100 */
                page_size?: number;
            };
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                agent_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: components["schemas"]["TemplateSend"][];
                        pagination: components["schemas"]["Pagination"];
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_AI_AGENT_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    AiWebhooks: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            /** Format: int64 */
                            id: number;
                            url: string;
                            events: string[];
                            enabled: boolean;
                            /** Format: date-time */
                            created_at: string;
                        }[];
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    CreateAiWebhook: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
                /** @description Makes the write safe to retry: within 24 hours the same key with the same body answers the kept answer (with Idempotent-Replayed: true); with another body 400 ERROR_IDEMPOTENCY_KEY_REUSED; while the first still runs 409 ERROR_IDEMPOTENCY_IN_PROGRESS with Retry-After. A 5xx is not kept. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    url: string;
                    events: ("*" | "conversation.created" | "conversation.closed" | "conversation.handoff" | "message.created" | "message.status" | "message.updated" | "template.sent" | "template.status" | "agent.updated" | "cart.updated" | "order.created" | "order.status" | "order.updated")[];
                    enabled?: boolean;
                };
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            /** Format: int64 */
                            id: number;
                            url: string;
                            events: string[];
                            enabled: boolean;
                            /** Format: date-time */
                            created_at: string;
                            secret: string;
                        };
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_IDEMPOTENCY_KEY_REUSED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A conflict with the current state */
            409: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_IDEMPOTENCY_IN_PROGRESS";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PAYLOAD_TOO_LARGE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A content type the operation does not take */
            415: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_UNSUPPORTED_MEDIA_TYPE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    DeleteAiWebhook: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                webhook_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            /** Format: int64 */
                            id: number;
                            url: string;
                            events: string[];
                            enabled: boolean;
                            /** Format: date-time */
                            created_at: string;
                        };
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_WEBHOOK_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    AiWebhookDeliveries: {
        parameters: {
            query?: {
                /** @description Page number, from 1 */
                page?: number;
                /** @description Rows per page, 1 to 100 */
                page_size?: number;
            };
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                webhook_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            id: string;
                            event_id: number;
                            event_type: string;
                            status: string;
                            attempts: number;
                            last_status_code: number | null;
                            last_error: string | null;
                            /** Format: date-time */
                            next_attempt_at: string | null;
                            /** Format: date-time */
                            delivered_at: string | null;
                        }[];
                        pagination: components["schemas"]["Pagination"];
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_WEBHOOK_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    AiEvents: {
        parameters: {
            query?: {
                last_event_id?: string;
                access_token?: string;
                api_key?: string;
                types?: string;
                conversation_id?: string;
            };
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
                /** @description Resume after this event id (EventSource sends it when it reconnects); wins over ?last_event_id */
                "Last-Event-ID"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Server-Sent Events: each event is `id: N`, `event: TYPE` and `data: {"id", "type", "created_at", "data"}` (the `webhooks` of this document describe each type's data), resumable with Last-Event-ID; `stream.reset` when the resume point is gone; comment lines keep the connection alive. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_AI_CONVERSATION_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    AiCurrentConversationEvents: {
        parameters: {
            query?: {
                last_event_id?: string;
                access_token?: string;
                api_key?: string;
            };
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
                /** @description Resume after this event id (EventSource sends it when it reconnects); wins over ?last_event_id */
                "Last-Event-ID"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                provider_external_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Server-Sent Events: each event is `id: N`, `event: TYPE` and `data: {"id", "type", "created_at", "data"}` (the `webhooks` of this document describe each type's data), resumable with Last-Event-ID; `stream.reset` when the resume point is gone; comment lines keep the connection alive. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_AGENT_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    AiAgents: {
        parameters: {
            query?: {
                /** @description Comma-separated fields to answer (`id` always included): `id`, `business_id`, `name`, `provider`, `provider_type`, `provider_external_id`, `enabled`, `disabled_reason`, `history`, `order_messages`, `credentials`, `created_at`, `updated_at`. Unknown: 400. */
                params?: string;
                /** @description JSON: an object of exact matches, AND-ed (an array value means any of), or an array of conditions {"attribute", "value"} where value is a literal or {"condition", "value"} with condition one of `=`, `!=`, `<`, `<=`, `>`, `>=`, `ilike`, `in`, `null`, `not_null` (`in` takes an array; `null` and `not_null` take no value); a group is {"conditions": […], "conector": "AND"|"OR"}. Attributes: `id` (id, a 64-bit integer), `business_id` (id, a 64-bit integer), `name` (text), `provider` (text), `provider_type` (text), `provider_external_id` (text), `enabled` (boolean), `created_at` (timestamp (ISO 8601 or YYYY-MM-DD HH:mm:ss, UTC without a zone)). Any other attribute, or malformed JSON: 400 naming the attributes allowed. */
                where?: string;
                /** @description Comma-separated attributes, `-` for descending (default and last key: `id` ascending). Attributes: `id`, `business_id`, `name`, `provider`, `provider_type`, `provider_external_id`, `enabled`, `created_at`. Any other: 400 naming the attributes allowed. */
                orderBy?: string;
                /** @description Page number, from 1 */
                page?: number;
                /** @description Rows per page, 1 to 100 */
                page_size?: number;
            };
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. With `params` (or `fields`), only the fields selected (and `id`). */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            /** Format: int64 */
                            id: number;
                            /** Format: int64 */
                            business_id?: number | null;
                            name?: string;
                            provider?: string;
                            provider_type?: string;
                            provider_external_id?: string;
                            enabled?: boolean;
                            disabled_reason?: string | null;
                            /** @description any JSON value (JSON) */
                            history?: unknown;
                            /** @description The notice per order status code ("0" placed, "7" accepted, …) */
                            order_messages?: {
                                [key: string]: {
                                    text: string;
                                    /** Format: int64 */
                                    template_id: number | null;
                                    locale: string | null;
                                };
                            } | null;
                            /**
                             * @example {
                             *       "waba_id": true,
                             *       "phone_number_id": true,
                             *       "access_token": true,
                             *       "app_secret": false,
                             *       "verify_token": false,
                             *       "dataset_id": false
                             *     }
                             */
                            credentials?: {
                                [key: string]: boolean;
                            };
                            /** Format: date-time */
                            created_at?: string;
                            /** Format: date-time */
                            updated_at?: string;
                        }[];
                        pagination: components["schemas"]["Pagination"];
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    CreateAiAgent: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
                /** @description Makes the write safe to retry: within 24 hours the same key with the same body answers the kept answer (with Idempotent-Replayed: true); with another body 400 ERROR_IDEMPOTENCY_KEY_REUSED; while the first still runs 409 ERROR_IDEMPOTENCY_IN_PROGRESS with Retry-After. A 5xx is not kept. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    /** Format: int64 */
                    business_id?: number | null;
                    provider: string;
                    provider_type: string;
                    provider_external_id: string;
                    enabled?: boolean;
                    /**
                     * @description WhatsApp: waba_id, phone_number_id, access_token, app_secret, verify_token, dataset_id (the Conversions API dataset). Write-only.
                     * @example {
                     *       "waba_id": "<waba id>",
                     *       "phone_number_id": "<phone number id>",
                     *       "access_token": "<access token>"
                     *     }
                     */
                    credentials?: {
                        [key: string]: string;
                    };
                };
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: components["schemas"]["Agent"];
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_IDEMPOTENCY_KEY_REUSED" | "ERROR_BUSINESS_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A conflict with the current state */
            409: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_IDEMPOTENCY_IN_PROGRESS";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PAYLOAD_TOO_LARGE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A content type the operation does not take */
            415: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_UNSUPPORTED_MEDIA_TYPE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    AiAgent: {
        parameters: {
            query?: {
                /** @description Comma-separated fields to answer (`id` always included): `id`, `business_id`, `name`, `provider`, `provider_type`, `provider_external_id`, `enabled`, `disabled_reason`, `history`, `order_messages`, `credentials`, `created_at`, `updated_at`. Unknown: 400. */
                params?: string;
            };
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                agent_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. With `params` (or `fields`), only the fields selected (and `id`). */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            /** Format: int64 */
                            id: number;
                            /** Format: int64 */
                            business_id?: number | null;
                            name?: string;
                            provider?: string;
                            provider_type?: string;
                            provider_external_id?: string;
                            enabled?: boolean;
                            disabled_reason?: string | null;
                            /** @description any JSON value (JSON) */
                            history?: unknown;
                            /** @description The notice per order status code ("0" placed, "7" accepted, …) */
                            order_messages?: {
                                [key: string]: {
                                    text: string;
                                    /** Format: int64 */
                                    template_id: number | null;
                                    locale: string | null;
                                };
                            } | null;
                            /**
                             * @example {
                             *       "waba_id": true,
                             *       "phone_number_id": true,
                             *       "access_token": true,
                             *       "app_secret": false,
                             *       "verify_token": false,
                             *       "dataset_id": false
                             *     }
                             */
                            credentials?: {
                                [key: string]: boolean;
                            };
                            /** Format: date-time */
                            created_at?: string;
                            /** Format: date-time */
                            updated_at?: string;
                        };
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_AI_AGENT_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    UpdateAiAgent: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                agent_id: number;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    name?: string;
                    /** Format: int64 */
                    business_id?: number | null;
                    provider?: string;
                    provider_type?: string;
                    provider_external_id?: string;
                    enabled?: boolean;
                    /**
                     * @description WhatsApp: waba_id, phone_number_id, access_token, app_secret, verify_token, dataset_id (the Conversions API dataset). Write-only.
                     * @example {
                     *       "waba_id": "<waba id>",
                     *       "phone_number_id": "<phone number id>",
                     *       "access_token": "<access token>"
                     *     }
                     */
                    credentials?: {
                        [key: string]: string | null;
                    };
                    /**
                     * @description The notices an order of a WhatsApp conversation sends, replacing the whole object (null removes them): keys are order status codes ("0" placed, "1" to "23" moves), values {"text" (1-1024 characters; {{order}} the order id, {{total}} the total and its currency, {{eta}} the move's reason or -), "template_id" (an APPROVED template of the agent, sent outside the customer service window; optional), "locale" (optional)}.
                     * @example {
                     *       "7": {
                     *         "text": "Order {{order}} accepted: {{total}}, ready in {{eta}}",
                     *         "template_id": null,
                     *         "locale": "en"
                     *       }
                     *     }
                     */
                    order_messages?: Record<string, never> | null;
                };
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: components["schemas"]["Agent"];
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_AI_AGENT_NOT_FOUND" | "ERROR_BUSINESS_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PAYLOAD_TOO_LARGE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A content type the operation does not take */
            415: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_UNSUPPORTED_MEDIA_TYPE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    CheckAiAgentCredentials: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
                /** @description Makes the write safe to retry: within 24 hours the same key with the same body answers the kept answer (with Idempotent-Replayed: true); with another body 400 ERROR_IDEMPOTENCY_KEY_REUSED; while the first still runs 409 ERROR_IDEMPOTENCY_IN_PROGRESS with Retry-After. A 5xx is not kept. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                agent_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            display_phone_number: string | null;
                            verified_name: string | null;
                            quality_rating: string | null;
                        };
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_IDEMPOTENCY_KEY_REUSED" | "ERROR_AI_AGENT_NOT_FOUND" | "ERROR_AI_PROVIDER_NOT_CONFIGURED" | "ERROR_AI_PROVIDER_REJECTED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A conflict with the current state */
            409: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_IDEMPOTENCY_IN_PROGRESS";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PAYLOAD_TOO_LARGE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A content type the operation does not take */
            415: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_UNSUPPORTED_MEDIA_TYPE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The provider did not answer as expected */
            502: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_PROVIDER_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    UploadAiMedia: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
                /** @description Makes the write safe to retry: within 24 hours the same key with the same body answers the kept answer (with Idempotent-Replayed: true); with another body 400 ERROR_IDEMPOTENCY_KEY_REUSED; while the first still runs 409 ERROR_IDEMPOTENCY_IN_PROGRESS with Retry-After. A 5xx is not kept. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": {
                    /**
                     * Format: binary
                     * @description The file, with its own Content-Type
                     */
                    file: Blob;
                };
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            id: string;
                            mime_type: string;
                            size: number;
                            sha256: string;
                            filename: string | null;
                            /** Format: date-time */
                            created_at: string;
                        };
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_IDEMPOTENCY_KEY_REUSED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A conflict with the current state */
            409: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_IDEMPOTENCY_IN_PROGRESS";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PAYLOAD_TOO_LARGE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A content type the operation does not take */
            415: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_UNSUPPORTED_MEDIA_TYPE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    AiUploadedFile: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
                /** @description One byte range (bytes=a-b, a-, -n): 206; unsatisfiable: 416 */
                Range?: string;
                /** @description The ETag of a copy held: 304 when unchanged */
                "If-None-Match"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                media_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file's bytes, with its own Content-Type */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    ETag?: string;
                    "Accept-Ranges"?: "bytes";
                    /** @description inline for pictures, audio, video and PDF; else attachment with the file name */
                    "Content-Disposition"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "*/*": Blob;
                };
            };
            /** @description The requested byte range */
            206: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    ETag?: string;
                    "Accept-Ranges"?: "bytes";
                    /** @description inline for pictures, audio, video and PDF; else attachment with the file name */
                    "Content-Disposition"?: string;
                    /** @description bytes a-b/size */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "*/*": Blob;
                };
            };
            /** @description If-None-Match names the current ETag: no body */
            304: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_AI_MEDIA_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The Range cannot be satisfied: no body */
            416: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description bytes *\/size */
                    "Content-Range"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The provider did not answer as expected */
            502: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MEDIA_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    AiReplies: {
        parameters: {
            query?: {
                where?: string;
                orderBy?: string;
                /** @description Page number, from 1 */
                page?: number;
                /** @description Rows per page, 1 to 100 */
                page_size?: number;
                /** @description Only conversations whose contact, contact name or a message's content contains this text (case-insensitive) */
                q?: string;
            };
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            /** Format: int64 */
                            id: number;
                            shortcut: string;
                            content: string;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            updated_at: string;
                        }[];
                        pagination: components["schemas"]["Pagination"];
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    CreateAiReply: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
                /** @description Makes the write safe to retry: within 24 hours the same key with the same body answers the kept answer (with Idempotent-Replayed: true); with another body 400 ERROR_IDEMPOTENCY_KEY_REUSED; while the first still runs 409 ERROR_IDEMPOTENCY_IN_PROGRESS with Retry-After. A 5xx is not kept. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    shortcut: string;
                    content: string;
                };
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            /** Format: int64 */
                            id: number;
                            shortcut: string;
                            content: string;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            updated_at: string;
                        };
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_IDEMPOTENCY_KEY_REUSED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A conflict with the current state */
            409: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_IDEMPOTENCY_IN_PROGRESS";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PAYLOAD_TOO_LARGE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A content type the operation does not take */
            415: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_UNSUPPORTED_MEDIA_TYPE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    DeleteAiReply: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                reply_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            /** Format: int64 */
                            id: number;
                            shortcut: string;
                            content: string;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            updated_at: string;
                        };
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_AI_REPLY_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    UpdateAiReply: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                reply_id: number;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    shortcut?: string;
                    content?: string;
                };
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            /** Format: int64 */
                            id: number;
                            shortcut: string;
                            content: string;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            updated_at: string;
                        };
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_AI_REPLY_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PAYLOAD_TOO_LARGE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A content type the operation does not take */
            415: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_UNSUPPORTED_MEDIA_TYPE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    AiBusinesses: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            /** Format: int64 */
                            id: number;
                            name: string;
                            currency: string;
                        }[];
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    AiOperators: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            /** Format: int64 */
                            id: number;
                            name: string | null;
                            level: number;
                            business_ids: number[];
                        }[];
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    AiConversationOrders: {
        parameters: {
            query?: {
                where?: string;
                orderBy?: string;
                /** @description Page number, from 1 */
                page?: number;
                /** @description Rows per page, 1 to 100 */
                page_size?: number;
            };
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                conversation_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            /** Format: int64 */
                            id: number;
                            status: number;
                            total: number | null;
                            /** Format: int64 */
                            business_id: number | null;
                            /** Format: date-time */
                            created_at: string;
                        }[];
                        pagination: components["schemas"]["Pagination"];
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_AI_CONVERSATION_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    PlaceAiOrder: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
                /** @description Makes the write safe to retry: within 24 hours the same key with the same body answers the kept answer (with Idempotent-Replayed: true); with another body 400 ERROR_IDEMPOTENCY_KEY_REUSED; while the first still runs 409 ERROR_IDEMPOTENCY_IN_PROGRESS with Retry-After. A 5xx is not kept. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                conversation_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    cart_version: number;
                    /** @enum {string} */
                    paymethod: "cash" | "card_delivery" | "card_pickup" | "stripe_link" | "other";
                    comment?: string | null;
                };
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: components["schemas"]["Order"];
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_IDEMPOTENCY_KEY_REUSED" | "ERROR_AI_CONVERSATION_NOT_FOUND" | "ERROR_AI_CONVERSATION_CLOSED" | "ERROR_AI_CART_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A conflict with the current state */
            409: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_IDEMPOTENCY_IN_PROGRESS" | "ERROR_AI_CONVERSATION_HANDED_OFF" | "ERROR_AI_CART_CHANGED";
                        result: string[] | components["schemas"]["Cart"];
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PAYLOAD_TOO_LARGE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A content type the operation does not take */
            415: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_UNSUPPORTED_MEDIA_TYPE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    AiProducts: {
        parameters: {
            query?: {
                /** @description JSON: an object of exact matches, AND-ed (an array value means any of), or an array of conditions {"attribute", "value"} where value is a literal or {"condition", "value"} with condition one of `=`, `!=`, `<`, `<=`, `>`, `>=`, `ilike`, `in`, `null`, `not_null` (`in` takes an array; `null` and `not_null` take no value); a group is {"conditions": […], "conector": "AND"|"OR"}. Attributes: `id` (id, a 64-bit integer), `business_id` (id, a 64-bit integer), `enabled` (boolean), `retailer_id` (text). Any other attribute, or malformed JSON: 400 naming the attributes allowed. */
                where?: string;
                /** @description Comma-separated attributes, `-` for descending (default and last key: `id` ascending). Attributes: `id`, `name`, `price`, `updated_at`. Any other: 400 naming the attributes allowed. */
                orderBy?: string;
                /** @description Page number, from 1 */
                page?: number;
                /** @description Rows per page, 1 to 100 */
                page_size?: number;
                /** @description Only conversations whose contact, contact name or a message's content contains this text (case-insensitive) */
                q?: string;
            };
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            /** Format: int64 */
                            id: number;
                            /** Format: int64 */
                            business_id: number | null;
                            name: string;
                            price: number;
                            enabled: boolean;
                            retailer_id: string | null;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            updated_at: string;
                        }[];
                        pagination: components["schemas"]["Pagination"];
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    CreateAiProduct: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
                /** @description Makes the write safe to retry: within 24 hours the same key with the same body answers the kept answer (with Idempotent-Replayed: true); with another body 400 ERROR_IDEMPOTENCY_KEY_REUSED; while the first still runs 409 ERROR_IDEMPOTENCY_IN_PROGRESS with Retry-After. A 5xx is not kept. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: int64 */
                    business_id: number;
                    name: string;
                    /** @description At most 2 decimals */
                    price: number;
                    enabled?: boolean;
                    retailer_id?: string;
                };
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            /** Format: int64 */
                            id: number;
                            /** Format: int64 */
                            business_id: number | null;
                            name: string;
                            price: number;
                            enabled: boolean;
                            retailer_id: string | null;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            updated_at: string;
                        };
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_IDEMPOTENCY_KEY_REUSED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A conflict with the current state */
            409: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_IDEMPOTENCY_IN_PROGRESS";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PAYLOAD_TOO_LARGE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A content type the operation does not take */
            415: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_UNSUPPORTED_MEDIA_TYPE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    AiProduct: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                product_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            /** Format: int64 */
                            id: number;
                            /** Format: int64 */
                            business_id: number | null;
                            name: string;
                            price: number;
                            enabled: boolean;
                            retailer_id: string | null;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            updated_at: string;
                        };
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_AI_PRODUCT_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    UpdateAiProduct: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                product_id: number;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    name?: string;
                    /** @description At most 2 decimals */
                    price?: number;
                    enabled?: boolean;
                    /** @description null clears it */
                    retailer_id?: string | null;
                };
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: {
                            /** Format: int64 */
                            id: number;
                            /** Format: int64 */
                            business_id: number | null;
                            name: string;
                            price: number;
                            enabled: boolean;
                            retailer_id: string | null;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            updated_at: string;
                        };
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_AI_PRODUCT_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PAYLOAD_TOO_LARGE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A content type the operation does not take */
            415: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_UNSUPPORTED_MEDIA_TYPE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    AiCart: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                conversation_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: components["schemas"]["Cart"];
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_AI_CONVERSATION_NOT_FOUND" | "ERROR_AI_CONVERSATION_CLOSED" | "ERROR_AI_CART_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    SetAiCart: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                conversation_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: int64 */
                    business_id: number;
                    /**
                     * @description 1 delivery, 2 pickup, 3 eat-in, 4 curbside, 5 drive-thru
                     * @enum {integer}
                     */
                    delivery_type: 1 | 2 | 3 | 4 | 5;
                    lines: ({
                        /** Format: int64 */
                        product_id?: number;
                        retailer_id?: string;
                        quantity: number;
                        comment?: string | null;
                    } & (unknown | unknown))[];
                    /** @description Required for delivery */
                    address?: string | null;
                    location?: {
                        latitude: number;
                        longitude: number;
                    } | null;
                    comment?: string | null;
                };
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: components["schemas"]["Cart"];
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_AI_CONVERSATION_NOT_FOUND" | "ERROR_AI_CONVERSATION_CLOSED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PAYLOAD_TOO_LARGE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A content type the operation does not take */
            415: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_UNSUPPORTED_MEDIA_TYPE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    ClearAiCart: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                conversation_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: null;
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_AI_CONVERSATION_NOT_FOUND" | "ERROR_AI_CONVERSATION_CLOSED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    AiOrders: {
        parameters: {
            query?: {
                /** @description JSON: an object of exact matches, AND-ed (an array value means any of), or an array of conditions {"attribute", "value"} where value is a literal or {"condition", "value"} with condition one of `=`, `!=`, `<`, `<=`, `>`, `>=`, `ilike`, `in`, `null`, `not_null` (`in` takes an array; `null` and `not_null` take no value); a group is {"conditions": […], "conector": "AND"|"OR"}. Attributes: `id` (id, a 64-bit integer), `uuid` (text), `business_id` (id, a 64-bit integer), `conversation_id` (id, a 64-bit integer), `customer_id` (id, a 64-bit integer), `status` (integer), `delivery_type` (integer), `created_at` (timestamp (ISO 8601 or YYYY-MM-DD HH:mm:ss, UTC without a zone)). Any other attribute, or malformed JSON: 400 naming the attributes allowed. */
                where?: string;
                /** @description Comma-separated attributes, `-` for descending (default and last key: `id` ascending). Attributes: `id`, `created_at`, `status`, `updated_at`. Any other: 400 naming the attributes allowed. */
                orderBy?: string;
                /** @description Page number, from 1 */
                page?: number;
                /** @description Rows per page, 1 to 100 */
                page_size?: number;
            };
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: components["schemas"]["Order"][];
                        pagination: components["schemas"]["Pagination"];
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    AiOrder: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                order_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: components["schemas"]["Order"];
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_AI_ORDER_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    MoveAiOrder: {
        parameters: {
            query?: never;
            header?: {
                /** @description Echoed in the answer's X-Request-Id (else a new id is given) */
                "X-Request-Id"?: string;
                /** @description Makes the write safe to retry: within 24 hours the same key with the same body answers the kept answer (with Idempotent-Replayed: true); with another body 400 ERROR_IDEMPOTENCY_KEY_REUSED; while the first still runs 409 ERROR_IDEMPOTENCY_IN_PROGRESS with Retry-After. A 5xx is not kept. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description en, es, fr or ar (others answer in English) */
                lang: string;
                /** @description The project (tenant) code */
                project: string;
                order_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    status: number;
                    reason?: string | null;
                };
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: false;
                        result: components["schemas"]["Order"];
                    };
                };
            };
            /** @description Invalid input, or a business rule refused it (told apart by `code`) */
            400: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_VALIDATION" | "ERROR_IDEMPOTENCY_KEY_REUSED" | "ERROR_AI_ORDER_NOT_FOUND";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow */
            401: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PROJECT_NOT_FOUND" | "ERROR_PROJECT_SUBSCRIPTION_INACTIVE" | "ERROR_UNAUTHORIZED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The project's AI module is off, or the operation is not the caller's */
            403: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_AI_MODULE_DISABLED" | "ERROR_FORBIDDEN";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A conflict with the current state */
            409: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_IDEMPOTENCY_IN_PROGRESS" | "ERROR_AI_ORDER_FINAL";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description The body is larger than allowed */
            413: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_PAYLOAD_TOO_LARGE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description A content type the operation does not take */
            415: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_UNSUPPORTED_MEDIA_TYPE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Usage limits reached: Retry-After says when to try again */
            429: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_RATE_LIMIT";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Unexpected failure (logged; nothing is leaked) */
            500: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_INTERNAL" | "ERROR_PROJECT_LOOKUP_FAILED";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
            /** @description Maintenance, or a dependency unavailable: Retry-After says when to try again */
            503: {
                headers: {
                    /** @description The request's id (the one sent, else a new one) */
                    "X-Request-Id"?: string;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        error: true;
                        /** @enum {string} */
                        code: "ERROR_MAINTENANCE" | "ERROR_RATE_LIMIT_UNAVAILABLE" | "ERROR_SERVICE_UNAVAILABLE";
                        /** @description One message per problem, in the request's language */
                        result: string[];
                    };
                };
            };
        };
    };
    "webhook:conversation.created": {
        parameters: {
            query?: never;
            header: {
                "X-OrderGraph-Signature": string;
                /** @description Unix seconds of this attempt */
                "X-OrderGraph-Timestamp": string;
                /** @description The same on every attempt of one event to one webhook */
                "X-OrderGraph-Delivery": string;
                "X-OrderGraph-Event": "conversation.created";
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: int64
                     * @description Increasing in commit order within the project
                     */
                    id: number;
                    /** @constant */
                    type: "conversation.created";
                    /** Format: date-time */
                    created_at: string;
                    data: components["schemas"]["ConversationEvent"];
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    "webhook:conversation.closed": {
        parameters: {
            query?: never;
            header: {
                "X-OrderGraph-Signature": string;
                /** @description Unix seconds of this attempt */
                "X-OrderGraph-Timestamp": string;
                /** @description The same on every attempt of one event to one webhook */
                "X-OrderGraph-Delivery": string;
                "X-OrderGraph-Event": "conversation.closed";
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: int64
                     * @description Increasing in commit order within the project
                     */
                    id: number;
                    /** @constant */
                    type: "conversation.closed";
                    /** Format: date-time */
                    created_at: string;
                    data: components["schemas"]["ConversationEvent"];
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    "webhook:conversation.handoff": {
        parameters: {
            query?: never;
            header: {
                "X-OrderGraph-Signature": string;
                /** @description Unix seconds of this attempt */
                "X-OrderGraph-Timestamp": string;
                /** @description The same on every attempt of one event to one webhook */
                "X-OrderGraph-Delivery": string;
                "X-OrderGraph-Event": "conversation.handoff";
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: int64
                     * @description Increasing in commit order within the project
                     */
                    id: number;
                    /** @constant */
                    type: "conversation.handoff";
                    /** Format: date-time */
                    created_at: string;
                    data: components["schemas"]["ConversationEvent"];
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    "webhook:message.created": {
        parameters: {
            query?: never;
            header: {
                "X-OrderGraph-Signature": string;
                /** @description Unix seconds of this attempt */
                "X-OrderGraph-Timestamp": string;
                /** @description The same on every attempt of one event to one webhook */
                "X-OrderGraph-Delivery": string;
                "X-OrderGraph-Event": "message.created";
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: int64
                     * @description Increasing in commit order within the project
                     */
                    id: number;
                    /** @constant */
                    type: "message.created";
                    /** Format: date-time */
                    created_at: string;
                    data: components["schemas"]["Message"];
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    "webhook:message.status": {
        parameters: {
            query?: never;
            header: {
                "X-OrderGraph-Signature": string;
                /** @description Unix seconds of this attempt */
                "X-OrderGraph-Timestamp": string;
                /** @description The same on every attempt of one event to one webhook */
                "X-OrderGraph-Delivery": string;
                "X-OrderGraph-Event": "message.status";
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: int64
                     * @description Increasing in commit order within the project
                     */
                    id: number;
                    /** @constant */
                    type: "message.status";
                    /** Format: date-time */
                    created_at: string;
                    data: components["schemas"]["Message"];
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    "webhook:message.updated": {
        parameters: {
            query?: never;
            header: {
                "X-OrderGraph-Signature": string;
                /** @description Unix seconds of this attempt */
                "X-OrderGraph-Timestamp": string;
                /** @description The same on every attempt of one event to one webhook */
                "X-OrderGraph-Delivery": string;
                "X-OrderGraph-Event": "message.updated";
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: int64
                     * @description Increasing in commit order within the project
                     */
                    id: number;
                    /** @constant */
                    type: "message.updated";
                    /** Format: date-time */
                    created_at: string;
                    data: components["schemas"]["Message"];
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    "webhook:template.sent": {
        parameters: {
            query?: never;
            header: {
                "X-OrderGraph-Signature": string;
                /** @description Unix seconds of this attempt */
                "X-OrderGraph-Timestamp": string;
                /** @description The same on every attempt of one event to one webhook */
                "X-OrderGraph-Delivery": string;
                "X-OrderGraph-Event": "template.sent";
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: int64
                     * @description Increasing in commit order within the project
                     */
                    id: number;
                    /** @constant */
                    type: "template.sent";
                    /** Format: date-time */
                    created_at: string;
                    data: components["schemas"]["TemplateSend"];
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    "webhook:template.status": {
        parameters: {
            query?: never;
            header: {
                "X-OrderGraph-Signature": string;
                /** @description Unix seconds of this attempt */
                "X-OrderGraph-Timestamp": string;
                /** @description The same on every attempt of one event to one webhook */
                "X-OrderGraph-Delivery": string;
                "X-OrderGraph-Event": "template.status";
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: int64
                     * @description Increasing in commit order within the project
                     */
                    id: number;
                    /** @constant */
                    type: "template.status";
                    /** Format: date-time */
                    created_at: string;
                    data: components["schemas"]["TemplateSend"];
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    "webhook:agent.updated": {
        parameters: {
            query?: never;
            header: {
                "X-OrderGraph-Signature": string;
                /** @description Unix seconds of this attempt */
                "X-OrderGraph-Timestamp": string;
                /** @description The same on every attempt of one event to one webhook */
                "X-OrderGraph-Delivery": string;
                "X-OrderGraph-Event": "agent.updated";
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: int64
                     * @description Increasing in commit order within the project
                     */
                    id: number;
                    /** @constant */
                    type: "agent.updated";
                    /** Format: date-time */
                    created_at: string;
                    data: components["schemas"]["Agent"];
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    "webhook:cart.updated": {
        parameters: {
            query?: never;
            header: {
                "X-OrderGraph-Signature": string;
                /** @description Unix seconds of this attempt */
                "X-OrderGraph-Timestamp": string;
                /** @description The same on every attempt of one event to one webhook */
                "X-OrderGraph-Delivery": string;
                "X-OrderGraph-Event": "cart.updated";
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: int64
                     * @description Increasing in commit order within the project
                     */
                    id: number;
                    /** @constant */
                    type: "cart.updated";
                    /** Format: date-time */
                    created_at: string;
                    data: components["schemas"]["Cart"];
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    "webhook:order.created": {
        parameters: {
            query?: never;
            header: {
                "X-OrderGraph-Signature": string;
                /** @description Unix seconds of this attempt */
                "X-OrderGraph-Timestamp": string;
                /** @description The same on every attempt of one event to one webhook */
                "X-OrderGraph-Delivery": string;
                "X-OrderGraph-Event": "order.created";
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: int64
                     * @description Increasing in commit order within the project
                     */
                    id: number;
                    /** @constant */
                    type: "order.created";
                    /** Format: date-time */
                    created_at: string;
                    data: components["schemas"]["Order"];
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    "webhook:order.status": {
        parameters: {
            query?: never;
            header: {
                "X-OrderGraph-Signature": string;
                /** @description Unix seconds of this attempt */
                "X-OrderGraph-Timestamp": string;
                /** @description The same on every attempt of one event to one webhook */
                "X-OrderGraph-Delivery": string;
                "X-OrderGraph-Event": "order.status";
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: int64
                     * @description Increasing in commit order within the project
                     */
                    id: number;
                    /** @constant */
                    type: "order.status";
                    /** Format: date-time */
                    created_at: string;
                    data: components["schemas"]["Order"];
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    "webhook:order.updated": {
        parameters: {
            query?: never;
            header: {
                "X-OrderGraph-Signature": string;
                /** @description Unix seconds of this attempt */
                "X-OrderGraph-Timestamp": string;
                /** @description The same on every attempt of one event to one webhook */
                "X-OrderGraph-Delivery": string;
                "X-OrderGraph-Event": "order.updated";
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: int64
                     * @description Increasing in commit order within the project
                     */
                    id: number;
                    /** @constant */
                    type: "order.updated";
                    /** Format: date-time */
                    created_at: string;
                    data: components["schemas"]["Order"];
                };
            };
        };
        responses: {
            /** @description Received */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
