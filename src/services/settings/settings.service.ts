import type { MikroORM } from '@mikro-orm/postgresql';
import { AppSetting } from '../../entities/app-setting.js';
import { TtlCache } from '../../platform/ttl-cache.js';

const MAINTENANCE = 'maintenance';

/** Application-wide switches: the environment's MAINTENANCE_MODE, or the flag set through the graph. */
export class SettingsService {
  private readonly cache = new TtlCache<string, boolean>(2000, 10);

  constructor(
    private readonly orm: MikroORM,
    private readonly envMaintenance: boolean,
  ) {}

  async maintenance(): Promise<boolean> {
    if (this.envMaintenance) return true;
    return this.cache.getOrLoad(MAINTENANCE, async () => {
      const row = await this.orm.em.fork().findOne(AppSetting, { key: MAINTENANCE });
      return row?.value === true;
    });
  }

  async setMaintenance(enabled: boolean): Promise<boolean> {
    const em = this.orm.em.fork();
    await em.upsert(AppSetting, { key: MAINTENANCE, value: enabled, updated_at: new Date() });
    this.cache.delete(MAINTENANCE);
    return this.maintenance();
  }
}
