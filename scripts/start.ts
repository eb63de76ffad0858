import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// `npm start`: runs each app as its own process (as in production), forwards Ctrl-C / SIGTERM to them,
// and stops everything if one of them exits.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const apps = [
  { name: 'platform-bridge', entry: 'apps/platform-bridge/src/main.ts' },
  { name: 'agent-gateway', entry: 'apps/agent-gateway/src/main.ts' },
];

const children: ChildProcess[] = [];
let stopping = false;

function stopAll(signal: NodeJS.Signals) {
  stopping = true;
  for (const c of children) if (c.exitCode === null) c.kill(signal);
}

for (const app of apps) {
  const child = spawn(process.execPath, ['--import', 'tsx', app.entry], {
    cwd: root,
    stdio: 'inherit',
    env: process.env,
  });
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`${app.name} exited (${signal ?? code}); stopping the others`);
      stopAll('SIGTERM');
      process.exitCode = code || 1;
    }
  });
  children.push(child);
}

process.on('SIGINT', () => stopAll('SIGINT'));
process.on('SIGTERM', () => stopAll('SIGTERM'));
