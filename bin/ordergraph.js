#!/usr/bin/env node
'use strict';
// Runs the compiled CLI, compiling it first when dist/ is missing (right after `npm ci`).
// Compiled output, not tsx: esbuild emits no decorator metadata, which MikroORM and TypeGraphQL read.
const path = require('node:path');
const fs = require('node:fs');
const { execFileSync } = require('node:child_process');
const root = path.join(__dirname, '..');
const main = path.join(root, 'dist', 'src', 'cli', 'main.js');
if (!fs.existsSync(main)) {
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
}
require(main);
