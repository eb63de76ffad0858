import { spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

// A Docker engine for the smoke test: the one that runs, or, as root, one started here (and stopped at the end).
// These machines have Debian's docker.io (dockerd 20.10) and docker-compose 1.29 and no image registry; dockerd
// runs there without touching the host's firewall (no iptables, no forwarding): published ports reach 127.0.0.1
// through docker-proxy, which is all the test needs.

export class EngineUnavailable extends Error {}

const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
const dockerAnswers = () => spawnSync('docker', ['info'], { stdio: 'ignore' }).status === 0;
const isRoot = () => process.getuid?.() === 0;

/** docker, dockerd, a compose and mmdebstrap: installed with apt as root on Debian when missing. */
export function ensureTools(log: (s: string) => void): void {
  const wanted: Array<[cmd: string, pkg: string]> = [
    ['docker', 'docker.io'],
    ['dockerd', 'docker.io'],
    ['mmdebstrap', 'mmdebstrap'],
  ];
  const missing = new Set(wanted.filter(([cmd]) => !has(cmd)).map(([, pkg]) => pkg));
  if (!has('docker-compose') && spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' }).status !== 0)
    missing.add('docker-compose');
  if (missing.size === 0) return;
  const cmd = `apt-get install -y ${[...missing].join(' ')}`;
  if (!isRoot() || !has('apt-get'))
    throw new EngineUnavailable(`missing ${[...missing].join(', ')}: run \`${cmd}\` as root (Debian)`);
  log(`installing ${[...missing].join(', ')} with apt`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [
    ['update', '-qq'],
    ['install', '-y', '-qq', ...missing],
  ]) {
    const r = spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env });
    if (r.status !== 0) throw new EngineUnavailable(`\`apt-get ${args.join(' ')}\` failed (${r.status})`);
  }
}

/** The running engine, or one started now; the function returned stops what was started (nothing otherwise). */
export async function ensureEngine(log: (s: string) => void): Promise<() => Promise<void>> {
  if (dockerAnswers()) return async () => {};
  if (!isRoot())
    throw new EngineUnavailable(
      'no Docker engine answers (`docker info` fails) and this is not root, so none can be started here',
    );
  const logFile = path.join(tmpdir(), `compose-smoke-dockerd-${process.pid}.log`);
  const out = openSync(logFile, 'a');
  log(`starting dockerd (its log: ${logFile})`);
  const dockerd = spawn('dockerd', ['--iptables=false', '--ip-forward=false', '--ip-masq=false'], {
    detached: true,
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  let exited: number | null = null;
  dockerd.on('exit', (code) => (exited = code ?? -1));
  const deadline = Date.now() + 60_000;
  while (!dockerAnswers()) {
    if (exited !== null || Date.now() > deadline) {
      if (exited === null) dockerd.kill('SIGTERM');
      const tail = readFileSync(logFile, 'utf8').trim().split('\n').slice(-5).join('\n');
      throw new EngineUnavailable(`dockerd did not come up (${exited ?? 'timeout'}):\n${tail}`);
    }
    await sleep(500);
  }
  return async () => {
    if (exited !== null) return;
    log('stopping the dockerd started for the test');
    const gone = new Promise<void>((resolve) => dockerd.once('exit', () => resolve()));
    dockerd.kill('SIGTERM');
    // dockerd stops its containers and its containerd; give it their stop timeouts
    await Promise.race([gone, sleep(60_000, undefined, { ref: false })]);
    if (exited === null) dockerd.kill('SIGKILL');
  };
}

/** `docker compose` (v2) when the plugin is there, else docker-compose (1.29). */
export function composeCommand(): string[] {
  if (spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' }).status === 0)
    return ['docker', 'compose'];
  return ['docker-compose'];
}
