/** The sandbox image is tagged by a hash of its inputs, so it is rebuilt only when they change. */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SANDBOX_DIR = dirname(fileURLToPath(import.meta.url));
export const IMAGE_REPOSITORY = 'tally-sandbox';

/** Files whose content goes into the image (the base script only picks the base, so it is left out). */
function imageInputs(root: string): string[] {
  const files = [join(root, 'image', 'Dockerfile')];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === '__pycache__') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.push(path);
    }
  };
  walk(join(root, 'kernel'));
  return files.sort();
}

export function sandboxImageTag(root: string = SANDBOX_DIR): string {
  const hash = createHash('sha256');
  for (const file of imageInputs(root)) {
    hash.update(relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return `${IMAGE_REPOSITORY}:${hash.digest('hex').slice(0, 12)}`;
}
