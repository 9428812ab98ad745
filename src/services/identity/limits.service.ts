import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { LimitScope, Project, RateLimitRule } from '../../entities/project.js';
import { appError } from '../../errors/codes.js';
import { rateLimitHeaders, type LimiterStore } from '../../limits/store.js';

/** A rule as enforced: defaults applied (`on_error` open; a ban only with both ban fields). */
interface Rule {
  scope: LimitScope;
  points: number;
  duration_s: number;
  ban?: { after: number; seconds: number };
  on_error: 'open' | 'closed';
}

interface RuleLimiters {
  rule: Rule;
  /** Points per window; also blocked for the ban's duration, so a banned subject costs one call. */
  count: RateLimiterAbstract;
  /** Excesses within the ban window (ban_s), and the ban itself. */
  excess?: RateLimiterAbstract;
  ban?: RateLimiterAbstract;
}

type Outcome = { kind: 'ok' } | { kind: 'limited'; rule: Rule; key: string; msBeforeNext: number } | { kind: 'unavailable' };

const OK: Outcome = { kind: 'ok' };
const MAX_PROJECTS = 10_000;

/**
 * Project usage limits (CONTRACT §7), the pipeline step between project and authentication.
 * Each rule spends one point per request on its subject (the project code, the client address
 * or the user id) in the shared store (limits/store.ts). Limiter objects hold no state of their
 * own beyond their options: every count, excess and ban lives in the store, so every process
 * sees the same numbers, and a store that comes back is used again by the next request.
 */
export class LimitsService {
  private readonly cache = new Map<number, { rules: RateLimitRule[]; signature: string; limiters: RuleLimiters[] }>();

  constructor(private readonly store: LimiterStore) {}

  async enforce(input: { project: Project; ip: string; userId?: number }): Promise<void> {
    const { project } = input;
    if (!project.rate_limits?.length) return;
    const limiters = this.limitersFor(project);
    const outcomes = await Promise.all(limiters.map((l) => this.spend(l, subjectOf(l.rule.scope, input))));
    // The first rule (in the project's order) that stops the request decides the answer.
    for (const o of outcomes) {
      if (o.kind === 'limited') {
        const headers = rateLimitHeaders({ limit: o.rule.points, msBeforeNext: o.msBeforeNext, scope: o.rule.scope, key: o.key });
        throw appError('ERROR_RATE_LIMIT', [{ key: 'ERROR_RATE_LIMIT', params: { retry_after: headers['retry-after'] } }], { headers });
      }
      if (o.kind === 'unavailable') {
        throw appError('ERROR_RATE_LIMIT_UNAVAILABLE', undefined, { headers: { 'retry-after': '1' } });
      }
    }
  }

  /** Limiters per (project, rule), rebuilt when the project's rules change. */
  private limitersFor(project: Project): RuleLimiters[] {
    const hit = this.cache.get(project.id);
    if (hit && hit.rules === project.rate_limits) return hit.limiters;
    const signature = JSON.stringify(project.rate_limits);
    if (hit && hit.signature === signature) {
      hit.rules = project.rate_limits;
      return hit.limiters;
    }
    const limiters = project.rate_limits.map((raw, i) => this.build(project.id, i, normalize(raw))).filter((l) => l !== null);
    if (!hit && this.cache.size >= MAX_PROJECTS) this.cache.delete(this.cache.keys().next().value as number);
    this.cache.set(project.id, { rules: project.rate_limits, signature, limiters });
    return limiters;
  }

  /**
   * Keys carry the project id and the rule's own numbers: a changed rule starts from zero (and
   * lifts its bans), an unchanged one keeps counting across processes and rebuilds.
   */
  private build(projectId: number, index: number, rule: Rule | null): RuleLimiters | null {
    if (!rule) return null;
    const prefix = `rl:${projectId}:${index}:${rule.scope}:${rule.points}:${rule.duration_s}`;
    const limiters: RuleLimiters = {
      rule,
      count: this.store.create({ keyPrefix: prefix, points: rule.points, duration: rule.duration_s }),
    };
    if (rule.ban) {
      const banPrefix = `${prefix}:ban:${rule.ban.after}:${rule.ban.seconds}`;
      limiters.excess = this.store.create({ keyPrefix: `${banPrefix}:x`, points: rule.ban.after, duration: rule.ban.seconds });
      limiters.ban = this.store.create({ keyPrefix: `${banPrefix}:b`, points: 1, duration: rule.ban.seconds });
    }
    return limiters;
  }

  private async spend(l: RuleLimiters, key: string | undefined): Promise<Outcome> {
    if (key === undefined) return OK;
    try {
      await l.count.consume(key);
      return OK;
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) return l.rule.on_error === 'closed' ? { kind: 'unavailable' } : OK;
      const limited = (ms: number): Outcome => ({ kind: 'limited', rule: l.rule, key, msBeforeNext: ms });
      if (!l.ban || !l.excess || !l.rule.ban) return limited(err.msBeforeNext);
      try {
        return limited(await this.excess(l, l.rule.ban, key, err.msBeforeNext));
      } catch {
        return limited(err.msBeforeNext); // the count said "over": that stands even if the ban bookkeeping failed
      }
    }
  }

  /**
   * An excess: during a ban, the ban's remaining time; otherwise it counts toward `ban_after`,
   * and the excess that reaches it bans the subject for `ban_s` from that moment.
   */
  private async excess(l: RuleLimiters, ban: { after: number; seconds: number }, key: string, msBeforeNext: number): Promise<number> {
    const banned = await l.ban!.get(key);
    if (banned && banned.consumedPoints > 1 && banned.msBeforeNext > 0) return banned.msBeforeNext;
    const excesses = await l.excess!.penalty(key, 1);
    if (excesses.consumedPoints < ban.after) return msBeforeNext;
    await Promise.all([l.ban!.block(key, ban.seconds), l.count.block(key, ban.seconds)]);
    await l.excess!.delete(key);
    return ban.seconds * 1000;
  }
}

function subjectOf(scope: LimitScope, input: { project: Project; ip: string; userId?: number }): string | undefined {
  switch (scope) {
    case 'project':
      return input.project.code;
    case 'ip':
      return input.ip || undefined;
    case 'user':
      return input.userId === undefined ? undefined : String(input.userId);
  }
}

const positive = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n > 0;

/** A stored rule as enforced; a malformed one (only possible outside the graph) is ignored. */
function normalize(raw: RateLimitRule): Rule | null {
  if (!raw || !['project', 'ip', 'user'].includes(raw.scope) || !positive(raw.points) || !positive(raw.duration_s)) return null;
  return {
    scope: raw.scope,
    points: raw.points,
    duration_s: raw.duration_s,
    ban: positive(raw.ban_after) && positive(raw.ban_s) ? { after: raw.ban_after, seconds: raw.ban_s } : undefined,
    on_error: raw.on_error === 'closed' ? 'closed' : 'open',
  };
}
