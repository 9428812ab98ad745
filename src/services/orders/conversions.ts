/** CONTRACT §15.6: Meta refuses a whole request whose `event_time` is more than 7 days old. */
export const CONVERSION_MAX_AGE_MS = 7 * 24 * 3600 * 1000;
/** CONTRACT §15.6: the conversion of an order whose event is still to be sent. */
export const PENDING_CONVERSION = { status: 'pending', error: null, sent_at: null } as const;
// The placing transaction queues the event (ai_conversion_sends) and sets the order's `conversion` to pending in the
// order's own statement (order.service.ts insertOrder); workers/conversion-sender.ts sends it.
