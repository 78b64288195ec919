// A real, tiny file system for disk-full tests: a tmpfs of a few KiB, mounted on a fresh directory. Mounting needs
// root on Linux; anywhere else the test is skipped with the reason printed. The mount is undone after the test
// (cleanups registered later, such as a gateway closing its records file, run before this one).
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';

/** The mounted directory, or null when the test was skipped (the caller returns at once). */
export async function mountTinyDisk(t: TestContext, bytes: number): Promise<string | null> {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) {
    t.skip(`needs root on Linux to mount a ${bytes / 1024} KiB tmpfs`);
    return null;
  }
  const dir = await mkdtemp(join(tmpdir(), 'tokenmeter-tiny-disk-'));
  let mounted = false;
  t.after(async () => {
    if (mounted) spawnSync('umount', [dir]);
    await rm(dir, { recursive: true, force: true });
  });
  const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir], {
    encoding: 'utf8',
  });
  if (mount.status !== 0) {
    t.skip(`mount -t tmpfs failed: ${(mount.stderr || mount.error?.message || '').trim()}`);
    return null;
  }
  mounted = true;
  return dir;
}
