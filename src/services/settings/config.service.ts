import { readRows } from '../../db/tenant-read.js';
import { Config } from '../../entities/config.js';
import { LEVEL } from '../../entities/user.js';
import { validationError } from '../../errors/codes.js';
import type { RequestContext } from '../../context/index.js';
import { ACCESS, assertAccess } from '../identity/access.js';

export const CONFIG_MODES = ['dashboard', 'dictionary'] as const;
export type ConfigMode = (typeof CONFIG_MODES)[number];

/** A configuration entry as callers see it. Built-in entries have `id` null and no description. */
export interface ConfigEntry {
  id: number | null;
  key: string;
  value: string;
  type: number;
  public: boolean;
  hidden: boolean;
  protected: boolean;
  description?: string | null;
  plugin: string | null;
}

export const PROTECTED_VALUE = 'PROTECT';

/** `GET /configs`: CONTRACT §5. */
export class ConfigService {
  async list(ctx: RequestContext, mode?: string | null): Promise<ConfigEntry[]> {
    assertAccess(ctx, ACCESS.AUTHENTICATED);
    if (mode != null && !(CONFIG_MODES as readonly string[]).includes(mode)) {
      throw validationError([{ field: 'mode', rule: 'enum', params: { values: CONFIG_MODES } }]);
    }
    const dictionary = mode === 'dictionary';
    const stored = await readRows(ctx.em, Config, dictionary ? { v2_only: false } : {}, { orderBy: { key: 'asc' } });
    const builtIn = builtInEntries(ctx);
    const builtInKeys = new Set(builtIn.map((e) => e.key));
    const entries = [
      ...stored.filter((c) => !builtInKeys.has(c.key) && visible(ctx, c)).map((c) => present(ctx, c, dictionary)),
      ...builtIn,
    ];
    return entries.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }
}

function visible(ctx: RequestContext, c: Config): boolean {
  const { caller } = ctx;
  if (caller.kind === 'server') return true;
  if (caller.kind !== 'user') return false;
  if (caller.user.level === LEVEL.ADMIN) return true;
  if (c.plugin && !ctx.project.plugins.includes(c.plugin)) return false;
  if (c.public && !c.hidden) return true;
  return caller.user.level === LEVEL.BUSINESS_OWNER && c.business_manager_visible;
}

function present(ctx: RequestContext, c: Config, dictionary: boolean): ConfigEntry {
  const entry: ConfigEntry = {
    id: c.id,
    key: c.key,
    value: c.protected && ctx.caller.kind !== 'server' ? PROTECTED_VALUE : c.value,
    type: c.type,
    public: c.public,
    hidden: c.hidden,
    protected: c.protected,
    plugin: c.plugin ?? null,
  };
  if (!dictionary) entry.description = c.description ?? null;
  return entry;
}

function builtInEntries(ctx: RequestContext): ConfigEntry[] {
  const entry = (key: string, value: string): ConfigEntry => ({
    id: null,
    key,
    value,
    type: 1,
    public: true,
    hidden: false,
    protected: false,
    plugin: null,
  });
  return [
    entry('ai_module_enabled', ctx.project.ai_enabled ? '1' : '0'),
    entry('api_version', '400'),
    entry('project_code', ctx.project.code),
  ];
}
