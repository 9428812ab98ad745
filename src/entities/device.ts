import { Entity, type Opt, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { TenantEntity } from './tenant.js';

/** A device registered for push notifications at login. */
@Entity({ tableName: 'devices' })
@Unique({ properties: ['project', 'notification_token'] })
export class Device extends TenantEntity {
  @PrimaryKey()
  id!: number;

  @Property()
  user_id!: number;

  @Property({ length: 1024 })
  notification_token!: string;

  @Property({ nullable: true })
  notification_app?: string | null;

  @Property({ nullable: true })
  notification_provider?: string | null;

  @Property({ nullable: true })
  platform?: string | null;

  @Property({ nullable: true })
  device_code?: string | null;

  @Property()
  created_at: Opt<Date> = new Date();

  @Property({ onUpdate: () => new Date() })
  updated_at: Opt<Date> = new Date();
}
