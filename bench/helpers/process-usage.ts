// What a process tree costs, read from /proc (Linux): the benchmarks measure a server's CPU and memory from
// outside it, so the measuring never runs in the process measured.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** The process and its descendants (a gateway's workers, nginx's worker), read once the process started them. */
export function processTree(pid: number): number[] {
  const tree = [pid];
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const children = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean);
      for (const child of children) tree.push(...processTree(Number(child)));
    }
  } catch {}
  return tree;
}

const TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK']).stdout?.toString()) || 100;

/** User + system CPU time the processes have used so far, ms. */
export function cpuMs(pids: readonly number[]): number {
  let ticks = 0;
  for (const p of pids) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      // The command name (field 2) may hold spaces: split after its closing parenthesis, where field 3 starts.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // fields 14 and 15: utime, stime
    } catch {}
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/** Resident memory of the processes, MiB. */
export function rssMb(pids: readonly number[]): number {
  let total = 0;
  for (const p of pids) {
    try {
      const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1];
      total += Number(kb ?? 0) / 1024;
    } catch {}
  }
  return total;
}
