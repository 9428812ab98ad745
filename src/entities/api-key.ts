import { Entity, ManyToOne, type Opt, PrimaryKey, Property, type Ref } from '@mikro-orm/core';
import { TenantEntity } from './tenant.js';
import { User } from './user.js';

/** An API key of a project: a server key, or one acting as its user. Stored as a SHA-256 hash. */
@Entity({ tableName: 'api_keys' })
export class ApiKey extends TenantEntity {
  @PrimaryKey()
  id!: number;

  @ManyToOne(() => User, { ref: true, nullable: true })
  user?: Ref<User> | null;

  @Property()
  server: Opt<boolean> = false;

  @Property({ length: 64, unique: true })
  key_hash!: string;

  @Property({ nullable: true })
  name?: string | null;

  @Property()
  created_at: Opt<Date> = new Date();
}
