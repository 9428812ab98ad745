import { Entity, type Opt, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { TenantEntity } from './tenant.js';

export const LOCALES = ['en', 'es', 'fr', 'ar'] as const;
export type Locale = (typeof LOCALES)[number];

/** One locale's translation document of an agent. */
@Entity({ tableName: 'ai_translations' })
@Unique({ properties: ['agent_id', 'locale'] })
export class AiTranslation extends TenantEntity {
  @PrimaryKey()
  id!: number;

  @Property()
  agent_id!: number;

  @Property({ length: 5 })
  locale!: string;

  @Property({ type: 'json' })
  value: Opt<Record<string, unknown> | unknown[]> = {};

  @Property({ onUpdate: () => new Date() })
  updated_at: Opt<Date> = new Date();
}
