/**
 * Integration tests run against the real Docker engine and the real sandbox image. When either is
 * missing they fail with what to do: never a skip.
 */
import Docker from 'dockerode';
import { sandboxImageTag } from '../../sandbox/image-tag.js';

export const docker = new Docker();

export async function requireSandboxImage(): Promise<string> {
  try {
    await docker.ping();
  } catch (error) {
    throw new Error(
      `No Docker engine answers (${String(error)}). Run 'npm run test:all', which starts one, or start Docker yourself.`,
    );
  }
  const image = sandboxImageTag();
  try {
    await docker.getImage(image).inspect();
  } catch {
    throw new Error(`Sandbox image ${image} is not built. Run 'npm run test:all' (or 'npm run setup') to build it.`);
  }
  return image;
}

/** Containers that belong to a test instance, running or not. */
export async function containersOf(instance: string): Promise<Docker.ContainerInfo[]> {
  return docker.listContainers({ all: true, filters: { label: [`tally.instance=${instance}`] } });
}
