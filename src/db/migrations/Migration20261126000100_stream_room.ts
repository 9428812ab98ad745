import { Migration } from '@mikro-orm/migrations';

/**
 * CONTRACT §11, "room kept for the people who run the project": a row of `open_streams` says whether
 * its credential is one whose streams count against the share of the project's budget (anyone but
 * server keys and levels 0 and 2: customers, guests), so one admission can sum that share too.
 */
export class Migration20261126000100_stream_room extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table open_streams add column limited boolean not null default false;');
  }
}
