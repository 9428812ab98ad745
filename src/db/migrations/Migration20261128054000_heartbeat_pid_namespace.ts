import { Migration } from '@mikro-orm/migrations';

/**
 * CONTRACT §11, third review: a process never takes over the claims of a live process, whatever their
 * node names (workers/process-liveness.ts). A pid says whether a process runs only in the pid namespace
 * it was read in: two containers of one configured hostname both run `serve` as pid 1. `pid_namespace`
 * names it (the kernel's boot id and the namespace's inode); a row without one (written before this
 * column) is never taken for a dead predecessor, only freed once its heartbeat is old.
 */
export class Migration20261128054000_heartbeat_pid_namespace extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table process_heartbeats add column if not exists pid_namespace text null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table process_heartbeats drop column if exists pid_namespace;`);
  }
}
