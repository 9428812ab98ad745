import type { FixtureFile, FixtureProject } from '../../src/fixtures/types.js';

/** Known secrets of the base fixture. */
export const PASSWORD = 'correct horse battery staple';
export const KEYS = {
  server: 'acme-server-key-0123456789',
  admin: 'acme-admin-key-0123456789',
  owner: 'acme-owner-key-0123456789',
  customer: 'acme-customer-key-0123456789',
  otherServer: 'other-server-key-0123456789',
  otherAdmin: 'other-admin-key-0123456789',
};

/** Users of acme by role (ids). */
export const USERS = { admin: 1, owner: 2, customer: 3, disabled: 4, cityManager: 5, owner2: 6, otherAdmin: 101 };

/**
 * Two projects: `acme` (AI on) with a user of each relevant level, and `other`, for isolation tests.
 * Ids below 100 are acme's, 100 and up other's.
 */
export function baseFixture(extra: Partial<FixtureProject> = {}): FixtureFile {
  return {
    projects: [
      {
        code: 'acme',
        name: 'Acme',
        ai_enabled: true,
        plugins: ['loyalty'],
        businesses: [
          { id: 1, name: 'Acme Centro', franchise_id: 1 },
          { id: 2, name: 'Acme Norte', franchise_id: 1 },
          { id: 3, name: 'Acme Sur' },
        ],
        users: [
          { id: USERS.admin, name: 'Ada', email: 'admin@acme.test', password: PASSWORD, level: 0 },
          { id: USERS.owner, name: 'Olga', email: 'owner@acme.test', password: PASSWORD, level: 2, business_ids: [1] },
          {
            id: USERS.customer,
            name: 'Carl',
            email: 'customer@acme.test',
            cellphone: '5512345678',
            country_phone_code: '52',
            password: PASSWORD,
            level: 3,
          },
          { id: USERS.disabled, name: 'Dan', email: 'disabled@acme.test', password: PASSWORD, level: 3, enabled: false },
          { id: USERS.cityManager, name: 'Cid', email: 'city@acme.test', password: PASSWORD, level: 1 },
          { id: USERS.owner2, name: 'Otto', email: 'owner2@acme.test', password: PASSWORD, level: 2, business_ids: [2] },
        ],
        api_keys: [
          { key: KEYS.server, server: true },
          { key: KEYS.admin, user_id: USERS.admin },
          { key: KEYS.owner, user_id: USERS.owner },
          { key: KEYS.customer, user_id: USERS.customer },
        ],
        ...extra,
      },
      {
        code: 'other',
        name: 'Other',
        ai_enabled: true,
        businesses: [{ id: 101, name: 'Other Shop' }],
        users: [{ id: USERS.otherAdmin, name: 'Oz', email: 'admin@other.test', password: PASSWORD, level: 0 }],
        api_keys: [
          { key: KEYS.otherServer, server: true },
          { key: KEYS.otherAdmin, user_id: USERS.otherAdmin },
        ],
        configs: [{ key: 'other_secret', value: 'other-value', public: true }],
      },
    ],
  };
}
