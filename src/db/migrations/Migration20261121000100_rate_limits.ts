import { Migration } from '@mikro-orm/migrations';

/** The shared counting table of rate-limiter-flexible's PostgreSQL store. */
export class Migration20261121000100_rate_limits extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table rate_limits (
  key varchar(255) primary key,
  points integer not null default 0,
  expire bigint
);`);
  }
}
