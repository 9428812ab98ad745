import type { BenchScenario, PrepareScenarios } from '../types.js';

export const AUTH_PROJECT = 'bench-auth';
export const AUTH_EMAIL = 'bench-user@bench.test';
export const AUTH_PASSWORD = 'bench-password-1';

/**
 * `POST /auth`, email branch, project `bench-auth` (one level-3 user; no reCAPTCHA config): argon2id
 * verification dominates, the ratio against bench/baseline.ts shows what the rest costs.
 */
export const prepare: PrepareScenarios = async ({ load }) => {
  await load({
    projects: [
      {
        code: AUTH_PROJECT,
        name: 'Bench auth',
        users: [{ id: 940_000, name: 'Bench', email: AUTH_EMAIL, password: AUTH_PASSWORD, level: 3 }],
      },
    ],
  });
  const scenarios: BenchScenario[] = [
    {
      name: 'POST /auth (email)',
      method: 'POST',
      path: `/v400/en/${AUTH_PROJECT}/auth`,
      body: JSON.stringify({ email: AUTH_EMAIL, password: AUTH_PASSWORD }),
      baseline: true,
    },
  ];
  return scenarios;
};
