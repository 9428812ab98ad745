/**
 * Who is calling, and may they: projects and credentials (tenancy), sign-in (auth), the access
 * rules of every operation (access), and usage limits (limits).
 */
export { ACCESS, assertAccess, assertAiAdmin, assertAiModule, isAllowed, visibleBusinessIds } from './access.js';
export { AuthService } from './auth.service.js';
export { LimitsService } from './limits.service.js';
export { TenancyService, credentialsFrom } from './tenancy.service.js';
/** Colleagues by name (CONTRACT §10.6): `GET /ai/operators`. */
export { OperatorService } from './operators.service.js';
