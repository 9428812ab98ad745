import 'reflect-metadata';
import { appendFileSync } from 'node:fs';
import { afterAll } from 'vitest';
import { checked } from './openapi-check.js';

// OPENAPI_CHECK_LOG=file: one line per test file, the answers checked against /openapi.json so far in this worker (test/support/openapi-check.ts)
afterAll(() => {
  const log = process.env.OPENAPI_CHECK_LOG;
  if (log) appendFileSync(log, `${process.pid} ${checked.answers} ${checked.skipped}\n`);
});
