import { Migration } from '@mikro-orm/migrations';

/**
 * The bucket functions rewritten with date_bin (immutable) instead of extract(epoch …) (stable
 * for timestamptz), so PostgreSQL can inline them in the trigger statements instead of
 * running a SQL function per row and grain. Same values: 15-minute and day bins aligned on the
 * Unix epoch, flooring towards the past.
 */
export class Migration20261121000450_metrics_inline_buckets extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create or replace function metrics_b15(t timestamptz) returns timestamptz language sql immutable parallel safe as
$$ select date_bin('15 minutes', t, timestamptz '1970-01-01 00:00:00+00') $$;

create or replace function metrics_bday(t timestamptz) returns timestamptz language sql immutable parallel safe as
$$ select date_bin('1 day', t, timestamptz '1970-01-01 00:00:00+00') $$;
`);
  }
}
