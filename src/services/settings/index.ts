/** The configuration list (`GET /configs`) and the application switches (maintenance). */
export { ConfigService } from './config.service.js';
export { SettingsService } from './settings.service.js';
