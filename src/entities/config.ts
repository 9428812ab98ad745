import { Entity, type Opt, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { TenantEntity } from './tenant.js';

export const CONFIG_TYPE = { TEXT: 1, SELECT: 2, MULTIPLE: 3, CHECKBOX: 4, IMAGE: 5, KEY_VALUE: 6, PASSWORD: 7 } as const;

/** A stored (model-backed) configuration entry of a project. */
@Entity({ tableName: 'configs' })
@Unique({ properties: ['project', 'key'] })
export class Config extends TenantEntity {
  @PrimaryKey()
  id!: number;

  @Property({ length: 128 })
  key!: string;

  @Property({ type: 'text' })
  value: Opt<string> = '';

  @Property({ type: 'smallint' })
  type: Opt<number> = CONFIG_TYPE.TEXT;

  @Property()
  public: Opt<boolean> = false;

  @Property()
  hidden: Opt<boolean> = false;

  @Property()
  protected: Opt<boolean> = false;

  @Property({ type: 'text', nullable: true })
  description?: string | null;

  @Property({ nullable: true, length: 64 })
  plugin?: string | null;

  @Property()
  v2_only: Opt<boolean> = false;

  @Property()
  business_manager_visible: Opt<boolean> = false;
}
