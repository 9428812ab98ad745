import fs from 'node:fs';
import inspector from 'node:inspector';
import path from 'node:path';

/**
 * A preload (`node --require dist/bench/profile-signal.js …`) for profiling under load only:
 * the first SIGWINCH (not SIGUSR2: close-with-grace shuts `serve` down on it) starts V8's CPU profiler, the next stops it and writes
 * `$PROFILE_DIR/<pid>-<n>.cpuprofile` (default bench/results/prof). bench/ab.ts sends the
 * signals around a scenario's rounds when BENCH_PROFILE=1.
 */
const dir = path.resolve(process.env.PROFILE_DIR ?? path.join('bench', 'results', 'prof'));
const session = new inspector.Session();
session.connect();
let running = false;
let written = 0;
process.on('SIGWINCH', () => {
  if (!running) {
    running = true;
    session.post('Profiler.enable', () =>
      session.post('Profiler.setSamplingInterval', { interval: 200 }, () => session.post('Profiler.start')),
    );
    return;
  }
  running = false;
  session.post('Profiler.stop', (err, res) => {
    if (err) return;
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${process.pid}-${++written}.cpuprofile`);
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(res.profile));
    fs.renameSync(`${file}.tmp`, file);
  });
});
