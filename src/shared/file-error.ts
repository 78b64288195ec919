// Why a file could not be read or written, in words ("no such file", "permission denied"), so every command
// names the problem alike instead of passing on node's "ENOENT: no such file or directory, open 'x'".

export function fileErrorReason(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'it is a folder, not a file';
  if (code === 'ENOTDIR') return 'a part of the path is a file, not a folder';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  return error instanceof Error ? error.message : String(error);
}
