/**
 * One bounded-attempt rule for every durable job of the service (CONTRACT §11, fourth review: "none
 * retries for ever"). Each outbox kind names its rule here, and asks `afterFailure` what a failed
 * attempt leads to: another attempt after the backoff (`baseMs` doubling from the first retry, at
 * most `maxDelayMs` apart), or the end, with the reason its record shows (`gaveUp`). A job stops
 * after `maxAttempts` attempts, after `maxAgeMs` from its creation when its kind has an age bound,
 * or at once when its failure is not one to retry (an answer that will not change: its data).
 *
 * A new outbox kind adds its rule to `ATTEMPT_RULES` and calls `afterFailure` from its `record`, as §15's
 * conversion events do (workers/conversion-sender.ts): nothing else to copy.
 */
export interface AttemptRule {
  /** Attempts in all; the last failure is final. */
  readonly maxAttempts: number;
  /** Longest wait between two attempts (Infinity: the doubling alone). */
  readonly maxDelayMs: number;
  /** A job older than this when its next attempt would be due is not attempted again. */
  readonly maxAgeMs?: number;
  /** How a give-up reads where the job's record is read (`gave up after …: ERROR`). */
  readonly describe?: (attempts: number) => string;
}

export const ATTEMPT_RULES = {
  /** CONTRACT §9.4: at most 8 attempts per webhook delivery. */
  webhookDelivery: { maxAttempts: 8, maxDelayMs: Infinity },
  /** CONTRACT §10.1: at most 8 attempts per WhatsApp reply. */
  whatsappSend: { maxAttempts: 8, maxDelayMs: Infinity },
  /** CONTRACT §12.3: a download is retried at most 10 minutes apart for at most 24 hours (the count bounds it too). */
  mediaDownload: { maxAttempts: 200, maxDelayMs: 10 * 60_000, maxAgeMs: 24 * 3600_000, describe: () => 'gave up after 24 hours' },
  /** CONTRACT §13.3 and §11: a history chunk that fails 10 times is `failed`, its reason on the agent's `history.failed`. */
  historyChunk: { maxAttempts: 10, maxDelayMs: 10 * 60_000 },
  /** CONTRACT §15.6: at most 8 attempts per Conversions API event, as §10.1's replies (an order's notices are replies). */
  conversionEvent: { maxAttempts: 8, maxDelayMs: Infinity },
} as const satisfies Record<string, AttemptRule>;

export type AttemptKind = keyof typeof ATTEMPT_RULES;

/** What follows a failed attempt: another after `delayMs`, or none (`reason`: the text to record, the error included). */
export type AfterFailure = { retry: true; delayMs: number } | { retry: false; reason: string };

/**
 * The fate of a job whose attempt number `attempts` (1 for the first) failed with `error`.
 * `retryable` false: the failure is final at once (its data, or an answer that will not change).
 */
export function afterFailure(
  rule: AttemptRule,
  baseMs: number,
  attempts: number,
  error: string,
  opts: { retryable?: boolean; createdAt?: Date; now?: number } = {},
): AfterFailure {
  if (opts.retryable === false) return { retry: false, reason: error };
  const delayMs = Math.min(rule.maxDelayMs, backoffMs(baseMs, attempts));
  const tooOld =
    rule.maxAgeMs !== undefined &&
    opts.createdAt !== undefined &&
    (opts.now ?? Date.now()) + delayMs - opts.createdAt.getTime() > rule.maxAgeMs;
  if (attempts < rule.maxAttempts && !tooOld) return { retry: true, delayMs };
  return { retry: false, reason: gaveUp(rule, attempts, error) };
}

/** `gave up after N attempts: ERROR` (or the kind's own wording). */
export function gaveUp(rule: AttemptRule, attempts: number, error: string): string {
  return `${rule.describe ? rule.describe(attempts) : `gave up after ${attempts} attempts`}: ${error}`;
}

/** The delay before attempt `attempts + 1`: `baseMs` doubling from the first retry. */
export function backoffMs(baseMs: number, attempts: number): number {
  return baseMs * 2 ** Math.max(0, attempts - 1);
}
