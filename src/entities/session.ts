import { Entity, ManyToOne, type Opt, PrimaryKey, Property, type Ref } from '@mikro-orm/core';
import { TenantEntity } from './tenant.js';
import { User } from './user.js';

/** A login session; only the SHA-256 of its bearer token is stored. */
@Entity({ tableName: 'sessions' })
export class Session extends TenantEntity {
  @PrimaryKey()
  id!: number;

  @ManyToOne(() => User, { ref: true })
  user!: Ref<User>;

  @Property({ length: 64, unique: true })
  token_hash!: string;

  @Property()
  expires_at!: Date;

  @Property({ nullable: true })
  device_code?: string | null;

  @Property({ nullable: true })
  platform?: string | null;

  @Property({ nullable: true })
  ip?: string | null;

  @Property({ nullable: true })
  forwarded_for?: string | null;

  @Property({ nullable: true })
  user_agent?: string | null;

  @Property()
  created_at: Opt<Date> = new Date();
}
