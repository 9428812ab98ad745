import type { EntityManager } from '@mikro-orm/postgresql';
import { AiTranslation, LOCALES, type Locale } from '../../entities/ai-translation.js';
import { validationError, type Problem } from '../../errors/codes.js';
import type { RequestContext } from '../../context/index.js';
import { translate } from '../../i18n/messages.js';
import { assertAiAdmin } from '../identity/access.js';
import { findVisibleAgent } from './agent-lookup.js';

export type TranslationMap = Partial<Record<Locale, Record<string, unknown>>>;

export interface TranslationsResult {
  message: string;
  translations: TranslationMap;
}

type JsonObject = Record<string, unknown>;

/**
 * Translations of an agent (CONTRACT §6.1): one JSON object per locale. PUT replaces the whole
 * map, PATCH deep-merges per locale (`null` removes a key, or the whole locale), copy replaces
 * the map with another agent's. Writers of one agent are serialised by locking the agent row.
 */
export class TranslationService {
  /** Without `locale`: every stored locale's value, keyed by locale; with it: that value or `{}`. */
  async get(ctx: RequestContext, agentId: number, locale?: string | null): Promise<unknown> {
    assertAiAdmin(ctx);
    if (locale != null && !isLocale(locale)) throw validationError([{ field: 'locale', rule: 'enum', params: { values: LOCALES } }]);
    const agent = await findVisibleAgent(ctx, agentId);
    const map = await readMap(ctx.em, agent.id);
    return locale != null ? (map[locale] ?? {}) : map;
  }

  async replace(ctx: RequestContext, agentId: number, translations: unknown): Promise<TranslationsResult> {
    assertAiAdmin(ctx);
    const input = parseInput(translations);
    await findVisibleAgent(ctx, agentId);
    const map = await ctx.em.transactional(async (em) => {
      const agent = await findVisibleAgent(ctx, agentId, { em, lock: true });
      if (input === undefined) return readMap(em, agent.id); // no `translations`: nothing to replace
      const next: TranslationMap = {};
      for (const [locale, value] of Object.entries(input)) if (value !== null) next[locale as Locale] = value;
      return writeMap(ctx, em, agent.id, next);
    });
    return { message: translate(ctx.lang, { key: 'translations_updated' }), translations: map };
  }

  async merge(ctx: RequestContext, agentId: number, translations: unknown): Promise<TranslationsResult> {
    assertAiAdmin(ctx);
    const input = parseInput(translations);
    await findVisibleAgent(ctx, agentId);
    const map = await ctx.em.transactional(async (em) => {
      const agent = await findVisibleAgent(ctx, agentId, { em, lock: true });
      const current = await readMap(em, agent.id);
      if (input === undefined) return current;
      const next: TranslationMap = { ...current };
      for (const [locale, patch] of Object.entries(input)) {
        if (patch === null) delete next[locale as Locale];
        else next[locale as Locale] = deepMerge(current[locale as Locale] ?? {}, patch);
      }
      return writeMap(ctx, em, agent.id, next);
    });
    return { message: translate(ctx.lang, { key: 'translations_updated' }), translations: map };
  }

  async copy(ctx: RequestContext, agentId: number, sourceAgentId: number): Promise<TranslationsResult> {
    assertAiAdmin(ctx);
    await findVisibleAgent(ctx, agentId);
    const source = await findVisibleAgent(ctx, sourceAgentId);
    const map = await ctx.em.transactional(async (em) => {
      const agent = await findVisibleAgent(ctx, agentId, { em, lock: true });
      return writeMap(ctx, em, agent.id, await readMap(em, source.id));
    });
    return { message: translate(ctx.lang, { key: 'translations_copied' }), translations: map };
  }
}

function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `{LOCALE: object | null}`; anything else is a 400 naming the offending field. */
function parseInput(translations: unknown): Record<string, JsonObject | null> | undefined {
  if (translations === undefined || translations === null) return undefined;
  if (!isObject(translations)) throw validationError([{ field: 'translations', rule: 'object' }]);
  const bad = Object.entries(translations)
    .filter(([locale, value]) => !isLocale(locale) || (value !== null && !isObject(value)))
    .map(([locale]): Problem =>
      isLocale(locale)
        ? { field: `translations.${locale}`, rule: 'object' }
        : { field: `translations.${locale}`, rule: 'key_enum', params: { values: LOCALES } },
    );
  if (bad.length) throw validationError(bad);
  return translations as Record<string, JsonObject | null>;
}

/** Objects merge key by key, recursively; `null` removes a key; any other value replaces. */
export function deepMerge(base: JsonObject, patch: JsonObject): JsonObject {
  const out: JsonObject = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else if (isObject(value) && isObject(out[key])) out[key] = deepMerge(out[key], value);
    else if (isObject(value))
      out[key] = deepMerge({}, value); // drops nulls nested in a new object
    else out[key] = value;
  }
  return out;
}

async function readMap(em: EntityManager, agentId: number): Promise<TranslationMap> {
  const rows = await em.find(AiTranslation, { agent_id: agentId }, { orderBy: { locale: 'asc' }, refresh: true });
  const map: TranslationMap = {};
  for (const locale of LOCALES) {
    const row = rows.find((r) => r.locale === locale);
    if (row) map[locale] = isObject(row.value) ? row.value : {};
  }
  return map;
}

/** Makes the stored locales exactly `next` (the caller holds the agent's lock, in a transaction). */
async function writeMap(ctx: RequestContext, em: EntityManager, agentId: number, next: TranslationMap): Promise<TranslationMap> {
  const rows = await em.find(AiTranslation, { agent_id: agentId });
  for (const row of rows) {
    const value = next[row.locale as Locale];
    if (value === undefined) em.remove(row);
    else {
      row.value = value;
      row.updated_at = new Date();
    }
  }
  for (const locale of LOCALES) {
    const value = next[locale];
    if (value !== undefined && !rows.some((r) => r.locale === locale)) {
      em.create(AiTranslation, { project: ctx.project, agent_id: agentId, locale, value });
    }
  }
  await em.flush();
  const out: TranslationMap = {};
  for (const locale of LOCALES) if (next[locale] !== undefined) out[locale] = next[locale];
  return out;
}
