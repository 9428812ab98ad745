import { Entity, ManyToOne, type Opt, PrimaryKey, Property, type Ref } from '@mikro-orm/core';
import { TenantEntity } from './tenant.js';
import { User } from './user.js';

/** A one-time password: hashed, single-use, expiring, at most MAX_OTP_ATTEMPTS tries. */
@Entity({ tableName: 'one_time_passwords' })
export class OneTimePassword extends TenantEntity {
  @PrimaryKey()
  id!: number;

  @ManyToOne(() => User, { ref: true })
  user!: Ref<User>;

  @Property()
  code_hash!: string;

  @Property()
  expires_at!: Date;

  @Property({ nullable: true })
  used_at?: Date | null;

  @Property()
  attempts: Opt<number> = 0;

  @Property()
  created_at: Opt<Date> = new Date();
}
