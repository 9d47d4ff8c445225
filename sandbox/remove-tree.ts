/** Removes a folder tree that code in the sandbox shaped, however deep it made it. */
import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';

const STDERR_KEEP_BYTES = 2048;

/**
 * `fs.rm` works on whole paths, so a tree nested past PATH_MAX (24 folders of 250 characters) makes
 * it fail with ENAMETOOLONG; `rm -rf` walks with `openat` and has no such limit. It stays on one
 * filesystem and never follows links. Throws when both fail.
 */
export async function removeTree(path: string): Promise<void> {
  try {
    await rm(path, { recursive: true, force: true });
  } catch (error) {
    await removeWithRm(path, error);
  }
}

function removeWithRm(path: string, firstError: unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('rm', ['-rf', '--one-file-system', '--', path], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < STDERR_KEEP_BYTES) stderr += chunk.toString('utf8');
    });
    child.on('error', (error) =>
      reject(new Error(`could not run rm for ${path}: ${error.message}`, { cause: firstError })),
    );
    child.on('close', (code) => {
      if (code === 0) resolve();
      else
        reject(
          new Error(`rm -rf ${path} exited with ${code}: ${stderr.slice(0, STDERR_KEEP_BYTES).trim()}`, {
            cause: firstError,
          }),
        );
    });
  });
}
