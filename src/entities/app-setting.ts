import { Entity, type Opt, PrimaryKey, Property } from '@mikro-orm/core';

/** Application-wide switches that internal tools change at run time (e.g. maintenance). */
@Entity({ tableName: 'app_settings' })
export class AppSetting {
  @PrimaryKey({ length: 64 })
  key!: string;

  @Property({ type: 'json' })
  value!: unknown;

  @Property({ onUpdate: () => new Date() })
  updated_at: Opt<Date> = new Date();
}
